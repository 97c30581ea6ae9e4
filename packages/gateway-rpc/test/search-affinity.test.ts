/**
 * The search pool's preferred-worker table (src/search-affinity.ts): one project's searches prefer
 * one worker, projects are spread evenly, a session's project is learned from its answers (and
 * corrected after a move), and both tables stay bounded.
 */
import { describe, expect, test } from 'vitest';
import { SearchAffinity } from '../src/search-affinity.js';
import type { SearchCallContext } from '../src/context.js';

const bySession = (currentSessionId: string): SearchCallContext => ({ profile: 'default', currentSessionId });
const byProject = (projectId: string): SearchCallContext => ({ profile: 'default', projectId });
const answer = (projectId: string | null): unknown => ({ scope: { kind: 'project', project_id: projectId } });

describe('SearchAffinity', () => {
  test.each([
    { size: 2, projects: 4, perSlot: [2, 2] },
    { size: 3, projects: 7, perSlot: [3, 2, 2] },
    { size: 1, projects: 3, perSlot: [3] },
  ])('$projects projects over $size workers are spread $perSlot, and each keeps its worker', ({ size, projects, perSlot }) => {
    const affinity = new SearchAffinity(size);
    const first = Array.from({ length: projects }, (_, i) => affinity.preferred(byProject(`p${i}`)));
    expect(Array.from({ length: size }, (_, slot) => first.filter((s) => s === slot).length)).toEqual(perSlot);
    expect(Array.from({ length: projects }, (_, i) => affinity.preferred(byProject(`p${i}`)))).toEqual(first);
  });

  test('a session goes by its id until an answer names its project, then with the other sessions of that project', () => {
    const affinity = new SearchAffinity(4);
    const project = affinity.preferred(byProject('P'));
    const sessions = ['s-1', 's-2', 's-3', 's-4', 's-5', 's-6'];
    const before = sessions.map((s) => affinity.preferred(bySession(s)));
    expect(new Set(before).size).toBeGreaterThan(1); // spread by id, not all on one worker
    expect(sessions.map((s) => affinity.preferred(bySession(s)))).toEqual(before); // stable
    for (const s of sessions) affinity.learn(bySession(s), answer('P'));
    expect(sessions.map((s) => affinity.preferred(bySession(s)))).toEqual(sessions.map(() => project));
  });

  test('after a move the next answer moves the session to its new project’s worker', () => {
    const affinity = new SearchAffinity(2);
    const [p, q] = [affinity.preferred(byProject('P')), affinity.preferred(byProject('Q'))];
    expect(p).not.toBe(q);
    affinity.learn(bySession('s'), answer('P'));
    expect(affinity.preferred(bySession('s'))).toBe(p);
    affinity.learn(bySession('s'), answer('Q'));
    expect(affinity.preferred(bySession('s'))).toBe(q);
  });

  test.each([
    ['an error result', { error: { code: 'invalid_arguments' } }],
    ['no scope', {}],
    ['a scope without a project', answer(null)],
    ['null', null],
  ])('%s teaches nothing', (_name, result) => {
    const affinity = new SearchAffinity(2);
    affinity.learn(bySession('s'), result);
    expect(affinity.held).toEqual({ sessions: 0, projects: 0 });
  });

  test('both tables stay bounded', () => {
    const affinity = new SearchAffinity(2, { sessions: 100, projects: 50 });
    for (let i = 0; i < 1000; i++) {
      affinity.learn(bySession(`s${i}`), answer(`p${i}`));
      const slot = affinity.preferred(bySession(`s${i}`));
      expect(slot === 0 || slot === 1).toBe(true);
    }
    expect(affinity.held.sessions).toBe(100);
    expect(affinity.held.projects).toBeLessThanOrEqual(50);
  });
});
