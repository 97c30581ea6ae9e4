/**
 * The counting vocabulary of an import run, shared by the writer (apply.ts) and the dry run
 * (dry-run.ts): the project mapping, a refused line, per-project counts and one batch's counts.
 */

export type ProjectMapping = { kind: 'none' } | { kind: 'project'; projectId: string } | { kind: 'per-folder' };

export interface SourceLineError {
  file: string;
  line: number;
  code: string;
  message: string;
}

export interface ProjectCount {
  /** Project id, `new:<folder>` for a project a dry run would create, or `none`. */
  project: string;
  name: string | null;
  /** Every new session row (compression continuations and hidden subagent sessions included). */
  sessions: number;
  messages: number;
  /**
   * New conversations as the project's list counts them (`recall projects`, the sidebar): new
   * sessions that are neither hidden, archived, nor a compression/delegation child of another.
   */
  conversations: number;
  /** New hidden sessions (subagent work): imported and readable, but never listed or searched. */
  hiddenSessions: number;
  /** New messages of hidden sessions (included in `messages`). */
  hiddenMessages: number;
}

/** What one batch did (or would do), merged into the summary once it committed. */
export interface Counts {
  projectsCreated: number;
  sessions: number;
  sessionsUpdated: number;
  messages: number;
  conversations: number;
  hiddenSessions: number;
  hiddenMessages: number;
  skipped: number;
  perProject: Map<string, ProjectCount>;
  errors: SourceLineError[];
}

export function emptyCounts(): Counts {
  return { projectsCreated: 0, sessions: 0, sessionsUpdated: 0, messages: 0, conversations: 0, hiddenSessions: 0, hiddenMessages: 0, skipped: 0, perProject: new Map(), errors: [] };
}

export function newProjectCount(project: string, name: string | null): ProjectCount {
  return { project, name, sessions: 0, messages: 0, conversations: 0, hiddenSessions: 0, hiddenMessages: 0 };
}
