/**
 * Which search worker a `session_search` job goes to first (search-pool.ts). Each worker has its own
 * read-only connection, and the SQLite keyword index keeps per-connection state for each project it
 * has searched (the scope's BM25 statistics, kept phrase counts and row sets, brought up to date with
 * the rows appended since). Sending one project's searches to the same worker builds and updates
 * that state once instead of in every worker. It is a preference, never a rule: the pool still gives
 * a waiting job to any idle worker (a hot project uses every core), and a wrong guess only costs
 * speed — each worker answers every project correctly.
 *
 * The project of a job is its context's `projectId`, or the project a previous answer for the same
 * `currentSessionId` reported (`scope.project_id`; learned after the first answer, corrected by the
 * next answer after a move); a session not answered yet goes by a hash of its id. Projects are
 * spread over the workers by how many each already prefers. Both maps are bounded.
 */
import type { SearchCallContext } from './context.js';

/** The bounds of the two tables (defaults: 10,000 each). */
export interface SearchAffinityLimits {
  /** Sessions whose project is remembered; the oldest learned is forgotten first. */
  sessions?: number;
  /** Projects with a preferred worker; past this the assignment starts over. */
  projects?: number;
}

/** The preferred-worker table of one pool of `size` workers. */
export class SearchAffinity {
  private readonly projectOfSession = new Map<string, string>();
  private readonly slotOfProject = new Map<string, number>();
  private readonly projectsPerSlot: number[];
  private readonly sessionsMax: number;
  private readonly projectsMax: number;

  constructor(
    readonly size: number,
    limits: SearchAffinityLimits = {},
  ) {
    this.projectsPerSlot = new Array<number>(size).fill(0);
    this.sessionsMax = limits.sessions ?? 10_000;
    this.projectsMax = limits.projects ?? 10_000;
  }

  /** The preferred worker index (0 … size − 1) for a job with this context. */
  preferred(context: SearchCallContext): number {
    const projectId = context.projectId ?? this.projectOfSession.get(context.currentSessionId);
    if (projectId === undefined) return hashOf(context.currentSessionId!) % this.size;
    const known = this.slotOfProject.get(projectId);
    if (known !== undefined) return known;
    if (this.slotOfProject.size >= this.projectsMax) {
      this.slotOfProject.clear();
      this.projectsPerSlot.fill(0);
    }
    let slot = 0;
    for (let i = 1; i < this.size; i++) if (this.projectsPerSlot[i]! < this.projectsPerSlot[slot]!) slot = i;
    this.slotOfProject.set(projectId, slot);
    this.projectsPerSlot[slot]! += 1;
    return slot;
  }

  /** How many sessions and projects the tables hold now (for tests and diagnostics). */
  get held(): { sessions: number; projects: number } {
    return { sessions: this.projectOfSession.size, projects: this.slotOfProject.size };
  }

  /** Remembers the project an answer reports for the job's session (answers without one are ignored). */
  learn(context: SearchCallContext, result: unknown): void {
    const sessionId = context.currentSessionId;
    if (sessionId === undefined) return;
    const projectId = (result as { scope?: { project_id?: unknown } } | null)?.scope?.project_id;
    if (typeof projectId !== 'string') return;
    if (this.projectOfSession.get(sessionId) === projectId) return;
    this.projectOfSession.delete(sessionId);
    if (this.projectOfSession.size >= this.sessionsMax) this.projectOfSession.delete(this.projectOfSession.keys().next().value!);
    this.projectOfSession.set(sessionId, projectId);
  }
}

/** FNV-1a over the UTF-16 code units: a stable, cheap spread of session ids. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}
