#!/usr/bin/env node
/**
 * Converts the MemoryBank-SiliconFriend chat logs (`../shared/data/memorybank/memory_bank_cn.json`
 * or `_en.json`: `{ user: { name, meta_information, history: { "YYYY-MM-DD": [{ query, response }] } } }`)
 * into `recall-jsonl` v1 (DESIGN §8), so the real data can be loaded with `recall import` or the
 * desktop's demo loader. Layout: one project per user by default (or the users spread over
 * `--projects N` shared projects), one session per user and day, and for each query/response pair
 * a user message and an assistant message. Every id is derived from the language, the user's name
 * and the date, never from file order or the clock, so converting twice yields identical lines and
 * re-importing them changes nothing. Timestamps are synthetic (the logs carry only dates): pair i of
 * a day is at 09:00 UTC + 2·i minutes, its response 30 s later. Plain JS (no build step) so it runs
 * from a fresh clone: `node tooling/scripts/memorybank-to-jsonl.mjs --lang cn --out /tmp/mb-cn.jsonl`.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The shared data folder sits beside the repository (the same layout on CI). */
export const DEFAULT_DATA_DIR = resolve(REPO_ROOT, '..', 'shared', 'data', 'memorybank');

const USAGE = `Usage: node tooling/scripts/memorybank-to-jsonl.mjs [--lang cn|en | --input FILE] [--out FILE] [--projects N] [--prefix ID]

  --lang cn|en     which MemoryBank file to read from ${DEFAULT_DATA_DIR} (default cn)
  --input FILE     read this file instead
  --out FILE       write here (default: stdout)
  --projects N     spread users over N shared projects instead of one project per user
  --prefix ID      id prefix (letters/digits, default mb<lang>) so two conversions can coexist
`;

/** A short, stable, id-safe digest of a display name (names are Chinese or padded with spaces). */
function nameKey(name) {
  return createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 10);
}

function isoAt(date, minutes, seconds = 0) {
  const base = Date.parse(`${date}T09:00:00Z`);
  if (Number.isNaN(base)) throw new Error(`Not a date: ${JSON.stringify(date)}`);
  return new Date(base + minutes * 60_000 + seconds * 1000).toISOString();
}

function describeUser(meta) {
  if (!meta || typeof meta !== 'object') return null;
  const parts = ['personality', 'hobbies', 'speaking_style']
    .map((k) => (typeof meta[k] === 'string' && meta[k].trim() ? `${k}: ${meta[k].trim()}` : null))
    .filter(Boolean);
  return parts.length ? parts.join('; ').slice(0, 2000) : null;
}

/**
 * Pure conversion: returns the list of records (objects) in import order — projects first, then
 * for each user and day its session followed by its messages.
 * @param {Record<string, any>} data parsed MemoryBank JSON
 * @param {{ lang?: string, projects?: number, prefix?: string }} [options]
 */
export function convertMemoryBank(data, options = {}) {
  const lang = options.lang ?? 'cn';
  const prefix = options.prefix ?? `mb${lang}`;
  if (!/^[A-Za-z0-9]{1,20}$/.test(prefix)) throw new Error('--prefix must be 1-20 letters or digits');
  const shared = options.projects ?? 0;
  const users = Object.entries(data)
    .map(([key, user]) => ({ key, name: String(user?.name ?? key).trim() || key.trim(), user }))
    // Order by the stable key, not by file order, so ids and output never depend on how the JSON was written.
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

  const records = [];
  const projectOf = new Map();
  if (shared > 0) {
    for (let i = 0; i < shared; i++) {
      records.push({ kind: 'project', id: `p_${prefix}_group${i + 1}`, name: `MemoryBank ${lang} group ${i + 1}`, description: 'Imported from MemoryBank-SiliconFriend (MIT)' });
    }
    users.forEach((u, i) => projectOf.set(u.key, `p_${prefix}_group${(i % shared) + 1}`));
  } else {
    for (const u of users) {
      const id = `p_${prefix}_${nameKey(u.key)}`;
      projectOf.set(u.key, id);
      records.push({ kind: 'project', id, name: `MemoryBank · ${u.name}`, description: describeUser(u.user?.meta_information) });
    }
  }

  for (const u of users) {
    const history = u.user?.history && typeof u.user.history === 'object' ? u.user.history : {};
    for (const date of Object.keys(history).sort()) {
      const pairs = Array.isArray(history[date]) ? history[date] : [];
      const sessionId = `${prefix}-${nameKey(u.key)}-${date}`;
      records.push({
        kind: 'session',
        id: sessionId,
        project_id: projectOf.get(u.key),
        lineage: 'root',
        source: 'import',
        title: `${u.name} · ${date}`,
        started_at: isoAt(date, 0),
      });
      pairs.forEach((pair, i) => {
        const query = typeof pair?.query === 'string' ? pair.query : '';
        const response = typeof pair?.response === 'string' ? pair.response : '';
        if (query.trim()) {
          records.push({ kind: 'message', session_id: sessionId, external_id: `${date}#${i}:q`, role: 'user', content: query, created_at: isoAt(date, 2 * i) });
        }
        if (response.trim()) {
          records.push({ kind: 'message', session_id: sessionId, external_id: `${date}#${i}:r`, role: 'assistant', content: response, created_at: isoAt(date, 2 * i, 30) });
        }
      });
    }
  }
  return records;
}

export function toJsonl(records) {
  return records.map((r) => JSON.stringify(r)).join('\n') + '\n';
}

function main(argv) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        lang: { type: 'string' },
        input: { type: 'string' },
        out: { type: 'string' },
        projects: { type: 'string' },
        prefix: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    process.stderr.write(`${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const lang = values.lang ?? 'cn';
  if (!['cn', 'en'].includes(lang)) {
    process.stderr.write(`--lang must be cn or en\n\n${USAGE}`);
    return 2;
  }
  const projects = values.projects === undefined ? 0 : Number(values.projects);
  if (values.projects !== undefined && (!Number.isInteger(projects) || projects < 1 || projects > 100)) {
    process.stderr.write(`--projects must be an integer from 1 to 100\n\n${USAGE}`);
    return 2;
  }
  const input = values.input ?? join(DEFAULT_DATA_DIR, `memory_bank_${lang}.json`);
  let data;
  try {
    data = JSON.parse(readFileSync(input, 'utf8'));
  } catch (error) {
    process.stderr.write(`Cannot read MemoryBank data at ${input}: ${error.message}\n(the shared data folder is expected at ../shared/data from the repository root)\n`);
    return 1;
  }
  const records = convertMemoryBank(data, { lang, projects, ...(values.prefix ? { prefix: values.prefix } : {}) });
  const text = toJsonl(records);
  if (values.out) {
    writeFileSync(values.out, text);
    const count = (kind) => records.filter((r) => r.kind === kind).length;
    process.stderr.write(`Wrote ${records.length} lines (${count('project')} projects, ${count('session')} sessions, ${count('message')} messages) to ${values.out}\n`);
  } else {
    process.stdout.write(text);
  }
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
