/**
 * bench:cjk's scale mode (`--messages`): the small variant runs end to end as a real child process
 * (ranking and latency in one table, no hit outside the scoped project), and the resampled Chinese
 * distractors never repeat a sentence of the logs they were drawn from. Needs ../shared/data
 * (MemoryBank CN); skipped without it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resampleChinese } from '../src/keyword-corpus.js';
import { REPO_ROOT, runNode } from './support/run-node.js';

const BANK = join(REPO_ROOT, '..', 'shared', 'data', 'memorybank', 'memory_bank_cn.json');

describe('resampleChinese', () => {
  const real = ['我上次说的那道蒸鱼要蒸多久？', '清蒸鲈鱼大概要蒸八分钟左右。', '周末我们去公园散步吧！', '我最近在学 Python 编程。'];
  it('draws only the logs’ words, repeats none of their sentences, and is seeded', () => {
    const out = resampleChinese(real, 7);
    expect(out).toHaveLength(real.length * 10);
    expect(resampleChinese(real, 7)).toEqual(out);
    expect(resampleChinese(real, 8)).not.toEqual(out);
    const sentences = new Set(real);
    const chars = new Set(real.join(''));
    for (const s of out) {
      expect(sentences.has(s)).toBe(false);
      for (const ch of s.replace(/\s/g, '')) expect(chars.has(ch) || /[。！？]/.test(ch)).toBe(true);
    }
  });
});

describe.skipIf(!existsSync(BANK))('bench:cjk --messages (small)', () => {
  it('prints one table of ranking and discover latency per kind, with no hit outside the scope', async () => {
    const r = await runNode([join(REPO_ROOT, 'tooling/bench/dist/cjk-bench.js'), '--messages', '4k', '--projects', '4', '--rounds', '1'], { timeoutMs: 120_000 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\| questions \| n \| R@1 \/ R@5 \/ MRR \| discover p50 \| discover p95 \|/m);
    for (const kind of ['exact', 'paraphrase', 'english', 'all']) expect(r.stdout).toMatch(new RegExp(`^\\| ${kind} \\| \\d+ \\| [01]\\.\\d{3} / \\*\\*[01]\\.\\d{3}\\*\\* / [01]\\.\\d{3} \\| [\\d.]+ ms \\|`, 'm'));
    expect(r.stdout).toMatch(/scope check: 0 hits outside the project/);
    // The asking user's log is among the largest project's messages: exact questions find their answers.
    const exact = /^\| exact \| \d+ \| [\d.]+ \/ \*\*([\d.]+)\*\*/m.exec(r.stdout);
    expect(Number(exact![1])).toBeGreaterThan(0.8);
    expect(r.stdout).toMatch(/wrote the MemoryBank logs \(1132 messages\) after 2,\d{3} generated messages/);
  });
});
