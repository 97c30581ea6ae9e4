/**
 * The profile part of `pnpm bench:vector`: writes the bench's vectors into a real profile database
 * (one project, one session per 1,000 messages, alternating user/assistant roles, one ready chunk per
 * message — what the index worker leaves behind), then runs `vector-profile-child.js` once per
 * matrix-cache mode, each a fresh process (a restart), and checks that every mode returned the same
 * hits. Modes: `sqlite` (shipped: int8 rows cached, candidates' float32 rows read from SQLite),
 * `memory` (int8 + float32 rows cached), `f32` (float32 rows cached, no int8 pass: the previous path).
 */
import { spawnSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '@recall/schema';
import { fingerprintFields, type VectorMatrix } from '@recall/semantic/internal';
import { ensureFingerprint } from '@recall/semantic/sqlite/internal';

export interface ProfileRun {
  mode: 'sqlite' | 'memory' | 'f32';
  coldMs: number;
  p50: number;
  p95: number;
  n: number;
  rssBefore: number;
  rssAfter: number;
  rssWarm: number;
  rssCleared: number;
  peakRss: number;
  cacheBytes: number;
  hits: Array<Array<[number, number]>>;
}

/** Writes `matrix` as ready chunks of project 'p'; returns the fingerprint id, write time and file size. */
export function writeProfile(path: string, matrix: VectorMatrix): { fingerprintId: number; ms: number; fileBytes: number } {
  const t0 = performance.now();
  const db = openDatabase(path);
  try {
    const { dims, rows, data } = matrix;
    const fp = ensureFingerprint(db, fingerprintFields({ provider: 'openai-compatible', endpoint: 'http://127.0.0.1:1/v1', model: `bench-${dims}`, dims }));
    db.raw.exec("insert into projects (id, name, slug) values ('p', 'Bench', 'bench')");
    const session = db.raw.prepare("insert into sessions (id, project_id) values (?, 'p')");
    const message = db.raw.prepare('insert into messages (session_id, role, content) values (?, ?, ?) returning id').pluck();
    const chunk = db.raw.prepare(`insert into semantic_chunks (fingerprint_id, message_id, session_id, chunk_index, start, "end", content_hash, chunker_version, vector, status, attempts) values (?, ?, ?, 0, 0, 12, 'h', 1, ?, 'ready', 1)`);
    const batch = db.raw.transaction((from: number, to: number) => {
      for (let row = from; row < to; row++) {
        const sid = `s${Math.floor(row / 1000)}`;
        if (row % 1000 === 0) session.run(sid);
        const id = message.get(sid, row % 2 === 0 ? 'user' : 'assistant', `message ${row}`) as number;
        chunk.run(fp.id, id, sid, Buffer.from(data.buffer, data.byteOffset + row * dims * 4, dims * 4)); // float32 LE, as vectorToBlob writes on this x64 machine
      }
    });
    for (let from = 0; from < rows; from += 50_000) batch(from, Math.min(rows, from + 50_000));
    db.raw.pragma('wal_checkpoint(TRUNCATE)');
    return { fingerprintId: fp.id, ms: performance.now() - t0, fileBytes: statSync(path).size };
  } finally {
    db.close();
  }
}

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'vector-profile-child.js');

/** One fresh process per mode (a restart: nothing cached but the OS page cache). */
export function runProfileModes(path: string, fingerprintId: number, dims: number, queries: Float32Array[], k: number, modes: ReadonlyArray<ProfileRun['mode']>): ProfileRun[] {
  const file = `${path}.queries`;
  const all = new Float32Array(queries.length * dims);
  queries.forEach((q, i) => all.set(q, i * dims));
  writeFileSync(file, Buffer.from(all.buffer));
  return modes.map((mode) => {
    const r = spawnSync(process.execPath, ['--expose-gc', CHILD, path, 'p', String(fingerprintId), String(dims), file, String(k), mode], { encoding: 'utf8', maxBuffer: 64 * 1024 ** 2 });
    if (r.status !== 0) throw new Error(`profile child (${mode}) failed: ${r.stderr}`);
    return JSON.parse(r.stdout) as ProfileRun;
  });
}
