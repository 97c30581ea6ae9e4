import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const file = fileURLToPath(new URL('../public/demo/recall-demo.jsonl', import.meta.url));

describe('demo history (recall-jsonl v1)', () => {
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim());
  const rows = lines.map((l) => JSON.parse(l) as Record<string, unknown>);

  it('has 2-3 projects, 6-10 conversations incl. one without a project, Chinese and English', () => {
    const projects = rows.filter((r) => r.kind === 'project');
    const sessions = rows.filter((r) => r.kind === 'session');
    const roots = sessions.filter((r) => r.lineage === 'root');
    expect(projects.length).toBeGreaterThanOrEqual(2);
    expect(projects.length).toBeLessThanOrEqual(3);
    expect(roots.length).toBeGreaterThanOrEqual(6);
    expect(roots.length).toBeLessThanOrEqual(10);
    expect(sessions.some((s) => s.project_id === null)).toBe(true);
    const text = rows.map((r) => String(r.content ?? '')).join('\n');
    expect(text).toMatch(/[\u4e00-\u9fff]/);
    expect(text).toMatch(/[A-Za-z]{4}/);
  });

  it('only uses known kinds, valid references and unique external ids, parents before children', () => {
    const projectIds = new Set<string>();
    const sessionIds = new Set<string>();
    const external = new Set<string>();
    for (const r of rows) {
      expect(['project', 'session', 'message']).toContain(r.kind);
      if (r.kind === 'project') projectIds.add(String(r.id));
      if (r.kind === 'session') {
        expect(r.project_id === null || projectIds.has(String(r.project_id))).toBe(true);
        if (r.parent_session_id !== null) expect(sessionIds.has(String(r.parent_session_id))).toBe(true);
        expect(Number.isNaN(Date.parse(String(r.started_at)))).toBe(false);
        sessionIds.add(String(r.id));
      }
      if (r.kind === 'message') {
        expect(sessionIds.has(String(r.session_id))).toBe(true);
        expect(['user', 'assistant', 'system', 'tool']).toContain(r.role);
        const key = `${String(r.session_id)}|${String(r.external_id)}`;
        expect(external.has(key)).toBe(false);
        external.add(key);
        expect(Number.isNaN(Date.parse(String(r.created_at)))).toBe(false);
      }
    }
  });
});
