/**
 * `bench:postgres --scan-variants`: other ways to run the exact vector top-k over one project's
 * chunks, on the bench's own rows, each checked against ChunkStore.search's answer (the exact
 * `<#>` ranking of the adapter; same ids in the same order, ties broken by message id as there):
 * - the adapter's statement inside the same row-level-security transaction, serial
 *   (max_parallel_workers_per_gather 0) and with 2 parallel workers forced (setup/tuple cost 0);
 * - a halfvec copy of the project's vectors (a table of its own: 2 bytes per dimension, ~half the
 *   heap), ranked by `<#>` on halfvec, serial and with 2 workers, then the best K' re-ranked with
 *   the float vectors and certified exact: every vector outside the K' is at least the K'-th
 *   halfvec distance minus the rounding bound EPS away, so the top-k is exact (ties included) when
 *   the k-th re-ranked distance is strictly below that; otherwise K' doubles and it runs again.
 * Bench-only (the table is created and dropped here); nothing of it is in the adapter.
 */
import { scopedRead, type RecallPostgres } from '@recall/store-postgres';
import { ms, stats } from './util.js';

/** |q_h·v_h − q·v| for unit vectors with halfvec rounding (unit roundoff 2^-11) plus float32 summation: < 1.1e-3. */
const EPS = 1.1e-3;

const lit = (v: Float32Array): string => `[${Array.from(v).join(',')}]`;

/** Runs the variants; `truth[i]` is ChunkStore.search's top-k message ids for `queries[i]`; returns table lines. */
export async function scanVariants(db: RecallPostgres, input: { fingerprintId: number; projectId: string; dims: number; k: number; queries: readonly Float32Array[]; truth: readonly number[][]; scanP50: number }): Promise<string[]> {
  const { fingerprintId, projectId, dims, k, queries, truth } = input;
  const lines: string[] = [];
  const row = (name: string, samples: number[], ids: number[][], note = '') => {
    const s = stats(samples);
    const same = ids.filter((got, i) => got.length === truth[i]!.length && got.every((id, j) => id === truth[i]![j])).length;
    lines.push(`| ${name} | ${ms(s.p50)} / ${ms(s.p95)} | ${(s.p50 / input.scanP50).toFixed(1)} | ${same} / ${ids.length} | ${note} |`);
  };
  const exactSql = `select c.message_id, c.embedding <#> $2::vector as distance from semantic_chunks c join sessions s on s.id = c.session_id
     where c.fingerprint_id = $1 and c.status = 'ready' and c.embedding is not null and not s.hidden and c.visibility in ('live', 'compacted')
       and c.project_id = $3 and s.project_id = c.project_id order by distance, c.message_id limit ${k}`;
  const parallel = ['set local max_parallel_workers_per_gather = 2', 'set local parallel_setup_cost = 0', 'set local parallel_tuple_cost = 0', 'set local min_parallel_table_scan_size = 0'];
  for (const [name, settings] of [
    ['adapter statement under RLS, serial', ['set local max_parallel_workers_per_gather = 0']],
    ['adapter statement under RLS, 2 parallel workers', parallel],
  ] as const) {
    const samples: number[] = [];
    const ids: number[][] = [];
    for (const q of queries) {
      const t = performance.now();
      const got = await scopedRead(db.pool, { projectId }, async (tx) => {
        for (const s of settings) await tx.query(s);
        return (await tx.query(exactSql, [fingerprintId, lit(q), projectId])).rows.map((r) => Number(r.message_id));
      });
      samples.push(performance.now() - t);
      ids.push(got);
    }
    row(name, samples, ids);
  }
  // The halfvec copy (owner's table, no policies: it measures the storage format, not RLS).
  await db.pool.query('drop table if exists bench_halfvec');
  await db.pool.query(`create table bench_halfvec as select c.message_id, c.project_id, c.embedding::halfvec(${dims}) as h from semantic_chunks c
     where c.fingerprint_id = $1 and c.project_id = $2 and c.status = 'ready'`, [fingerprintId, projectId]);
  await db.pool.query('vacuum analyze bench_halfvec');
  const size = (await db.pool.query("select pg_size_pretty(pg_table_size('bench_halfvec')) as h, pg_size_pretty(pg_table_size('semantic_chunks')) as c")).rows[0];
  for (const [name, settings] of [
    ['halfvec copy + certified float re-rank, serial', ['set local max_parallel_workers_per_gather = 0']],
    ['halfvec copy + certified float re-rank, 2 parallel workers', parallel],
  ] as const) {
    const samples: number[] = [];
    const ids: number[][] = [];
    let rounds = 0;
    for (const q of queries) {
      const t = performance.now();
      const client = await db.pool.connect();
      try {
        await client.query('begin');
        for (const s of settings) await client.query(s);
        for (let wide = k * 4; ; wide *= 2) {
          rounds++;
          const cands = (await client.query(`select message_id, h <#> $1::halfvec as d from bench_halfvec where project_id = $2 order by d, message_id limit ${wide}`, [lit(q), projectId])).rows;
          const reranked = (
            await client.query(`select c.message_id, c.embedding <#> $1::vector as distance from semantic_chunks c where c.fingerprint_id = $2 and c.message_id = any($3::bigint[]) order by distance, c.message_id limit ${k}`, [lit(q), fingerprintId, cands.map((r) => r.message_id)])
          ).rows;
          const bound = cands.length < wide ? Infinity : Number(cands[cands.length - 1].d) - EPS;
          if (reranked.length < k && cands.length === wide) continue;
          if (reranked.length === 0 || Number(reranked[reranked.length - 1].distance) < bound) {
            ids.push(reranked.map((r) => Number(r.message_id)));
            break;
          }
        }
        await client.query('commit');
      } finally {
        client.release();
      }
      samples.push(performance.now() - t);
    }
    row(name, samples, ids, `${(rounds / queries.length).toFixed(1)} rounds/query; halfvec table ${size.h}, semantic_chunks ${size.c}`);
  }
  await db.pool.query('drop table bench_halfvec');
  return lines;
}
