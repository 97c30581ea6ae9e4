/**
 * The notice list as a pure function: errors stay until dismissed (an identical error shown again
 * is counted, not stacked), while success/info notices are transient — at most `maxTransient` of
 * them are kept, so a burst of successes can never push an error out.
 */
export type NoticeKind = 'success' | 'info' | 'error';

export interface Notice {
  id: number;
  kind: NoticeKind;
  text: string;
  /** How many times this same error was reported (≥ 1). */
  count: number;
  /** One optional action, e.g. "Undo" after a move; running it dismisses the notice. */
  action?: NoticeAction | undefined;
}

export interface NoticeAction {
  label: string;
  run: () => void;
}

export const MAX_TRANSIENT_NOTICES = 2;

export function addNotice(list: readonly Notice[], next: Omit<Notice, 'count'>, maxTransient = MAX_TRANSIENT_NOTICES): Notice[] {
  if (next.kind === 'error') {
    const same = list.find((n) => n.kind === 'error' && n.text === next.text);
    const rest = same ? list.filter((n) => n !== same) : [...list];
    return [...rest, { ...next, count: (same?.count ?? 0) + 1 }];
  }
  const out = [...list, { ...next, count: 1 }];
  let transient = out.filter((n) => n.kind !== 'error').length;
  return out.filter((n) => {
    if (n.kind === 'error' || transient <= maxTransient) return true;
    transient--;
    return false;
  });
}
