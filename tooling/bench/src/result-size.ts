/**
 * `pnpm bench:result-size` — how big session_search results are for a model, with the default
 * arguments (limit 8, window 2, keyword mode) on the MemoryBank chat logs (English and Chinese,
 * read in place from ../shared/data/memorybank, never copied): every user is a project, every day a
 * conversation. Queries are the dev questions of packages/store/test/fixtures/cjk-dev-queries.json
 * (Chinese) and each English user's own first words of every third day (English). Prints, per
 * language, the size of the `results` array as JSON characters and estimated tokens (budget.ts:
 * ASCII/4 + 1 per other character), how many results and window messages a call returns, and how
 * often the per-call budget had to trim. A command, not a test: it prints and exits.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@recall/schema';
import { createSessionSearchTool, estimateTokens, RESULT_TOKEN_BUDGET } from '@recall/search-tool';
import { appendMessages, bulkWrite, createProject, createSession, findMessage } from '@recall/store';
import { tmpdir } from 'node:os';
import { exitOnHelp, REPO_ROOT } from './util.js';

exitOnHelp(`Usage: pnpm bench:result-size   (node tooling/bench/dist/result-size.js)
Size of session_search results with the default arguments (limit 8, window 2, keyword mode) on the
MemoryBank chat logs: JSON characters and estimated tokens per call, results and window messages,
how often the per-call budget trimmed. Needs ../shared/data/memorybank (nothing measured without it).
  -h, --help   print this and exit`);

const REPO = REPO_ROOT;
const DATA = join(REPO, '..', 'shared', 'data', 'memorybank');

interface Bank {
  [user: string]: { history: Record<string, { query: string; response: string }[]> };
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

async function main(): Promise<void> {
  const files = { en: join(DATA, 'memory_bank_en.json'), cn: join(DATA, 'memory_bank_cn.json') };
  if (!existsSync(files.en) || !existsSync(files.cn)) {
    console.log(`MemoryBank data not found under ${DATA}; nothing measured.`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'recall-result-size-'));
  const db = openDatabase(join(dir, 'bench.db'));
  try {
    const callers = new Map<string, string>();
    const firstWords: { user: string; query: string }[] = [];
    for (const [lang, path] of Object.entries(files)) {
      const bank = JSON.parse(readFileSync(path, 'utf8')) as Bank;
      bulkWrite(db, () => {
        let t = Date.UTC(2023, 3, 27);
        for (const [user, v] of Object.entries(bank)) {
          const project = createProject(db, { name: `${lang}-${user}` });
          let day = 0;
          for (const [date, turns] of Object.entries(v.history)) {
            const s = createSession(db, { projectId: project.id, title: null, startedAt: t });
            appendMessages(
              db,
              s.id,
              turns.flatMap((turn) => [
                { role: 'user' as const, content: turn.query, createdAt: (t += 1000) },
                { role: 'assistant' as const, content: turn.response, createdAt: (t += 1000) },
              ]),
            );
            if (lang === 'en' && day++ % 3 === 0 && turns[0]) firstWords.push({ user: `${lang}-${user}`, query: turns[0].query.split(/\s+/).slice(0, 8).join(' ') });
            void date;
          }
          callers.set(`${lang}-${user}`, createSession(db, { projectId: project.id, title: 'caller' }).id);
        }
      });
    }
    const dev = JSON.parse(readFileSync(join(REPO, 'packages', 'store', 'test', 'fixtures', 'cjk-dev-queries.json'), 'utf8')) as { queries: { user: string; query: string }[] };
    const sets = {
      chinese: dev.queries.map((q) => ({ user: `cn-${q.user}`, query: q.query })),
      english: firstWords,
    };
    const tool = createSessionSearchTool({ db });
    const unbounded = createSessionSearchTool({ db, resultTokenBudget: Number.MAX_SAFE_INTEGER });
    console.log(`session_search result size — default args (limit 8, window 2, keyword), budget ${RESULT_TOKEN_BUDGET} est. tokens`);
    console.log(`machine: ${cpus()[0]?.model ?? 'cpu'} ×${cpus().length}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}; ${new Date().toISOString()}`);
    const summary: Record<string, unknown> = { bench: 'result-size', budget_tokens: RESULT_TOKEN_BUDGET };
    for (const [name, queries] of Object.entries(sets)) {
      const chars: number[] = [];
      const tokens: number[] = [];
      const rawTokens: number[] = [];
      let results = 0;
      let windows = 0;
      let trimmed = 0;
      let calls = 0;
      let saved = 0;
      for (const q of queries) {
        const caller = callers.get(q.user);
        if (!caller) continue;
        const r = await tool.execute({ query: q.query, search_mode: 'keyword' }, { currentSessionId: caller });
        const raw = await unbounded.execute({ query: q.query, search_mode: 'keyword' }, { currentSessionId: caller });
        const json = JSON.stringify(r.results);
        chars.push(json.length);
        tokens.push(estimateTokens(json));
        rawTokens.push(estimateTokens(JSON.stringify(raw.results)));
        results += r.results.length;
        windows += r.results.reduce((n, x) => n + x.window.length, 0);
        if (r.notes.some((n) => n.includes('budget'))) trimmed++;
        // What repeating the anchor's text in its window entry (as before) would have added.
        for (const x of r.results) if (x.window.length > 0) saved += Math.min(400, findMessage(db, x.message_id)?.content.length ?? 0) + 8;
        calls++;
      }
      const sc = [...chars].sort((a, b) => a - b);
      const st = [...tokens].sort((a, b) => a - b);
      const sr = [...rawTokens].sort((a, b) => a - b);
      summary[`${name}_tokens_p95`] = pct(st, 95);
      summary[`${name}_chars_p95`] = pct(sc, 95);
      console.log(
        `${name.padEnd(8)} calls ${calls}: results/call ${(results / calls).toFixed(1)}, window msgs/call ${(windows / calls).toFixed(1)}; ` +
          `chars p50 ${pct(sc, 50)} p95 ${pct(sc, 95)} max ${sc[sc.length - 1]}; est. tokens p50 ${pct(st, 50)} p95 ${pct(st, 95)} max ${st[st.length - 1]} ` +
          `(unbudgeted p95 ${pct(sr, 95)} max ${sr[sr.length - 1]}); trimmed by the budget in ${trimmed}/${calls} calls; not repeating the anchor text saves ${(saved / calls).toFixed(0)} chars/call`,
      );
    }
    console.log(`BENCH-SUMMARY ${JSON.stringify(summary)}`);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
