/**
 * The MemoryBank Chinese logs and the tuning questions as bench:cjk reads them (both modes): one
 * document per message, turns labelled `date#index`, the question fixture's shape.
 */

export interface MemoryBank {
  [user: string]: { history: Record<string, { query: string; response: string }[]> };
}
export interface DevQuery {
  id: string;
  /** exact | paraphrase | english | foreign (see the fixture's description). */
  kind?: string;
  user: string;
  query: string;
  /** Empty for `foreign` questions (the answer lives in another user's project); those are not scored here. */
  targets: string[];
}
export interface Doc {
  id: number;
  user: string;
  session: string;
  /** `date#turn` */
  turn: string;
  role: 'user' | 'assistant';
  content: string;
  createdAt: number;
}

/** Messages scored per question (R@5). */
export const K = 5;
/** Keyword candidates discover fetches for a limit-10 session_search call (CANDIDATES_PER_RESULT 8 × 10). */
export const DISCOVER_CANDIDATES = 80;

/** Every message of the logs in file order (users, then dates, then turns: question, answer). */
export function loadDocs(bank: MemoryBank): Doc[] {
  const docs: Doc[] = [];
  let t = Date.UTC(2023, 3, 27);
  for (const [user, v] of Object.entries(bank)) {
    for (const [date, turns] of Object.entries(v.history)) {
      turns.forEach((turn, i) => {
        for (const [role, content] of [
          ['user', turn.query],
          ['assistant', turn.response],
        ] as const) {
          docs.push({ id: docs.length + 1, user, session: `${user}/${date}`, turn: `${date}#${i}`, role, content, createdAt: (t += 1000) });
        }
      });
    }
  }
  return docs;
}
