/**
 * A one-line progress bar for long CLI operations, drawn on stderr only when stderr is a terminal
 * (redrawn in place with \r, throttled to ~10 frames a second); on a pipe or in CI it draws nothing,
 * so logs and `--json` output stay clean.
 */
import type { Output } from './context.js';

export interface ProgressBar {
  update(done: number, total: number | null, label: string): void;
  finish(): void;
}

const FRAME_MS = 100;

export function progressBar(err: Output): ProgressBar {
  if (!err.isTTY) return { update: () => {}, finish: () => {} };
  let last = 0;
  let drawn = false;
  const draw = (done: number, total: number | null, label: string): void => {
    const width = Math.max(10, Math.min(40, err.columns - label.length - 12));
    let line: string;
    if (total !== null && total > 0) {
      const ratio = Math.min(1, done / total);
      const filled = Math.round(ratio * width);
      line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}% ${label}`;
    } else {
      line = label;
    }
    err.write(`\r${line.slice(0, Math.max(1, err.columns - 1))}\u001b[K`);
    drawn = true;
  };
  return {
    update(done, total, label) {
      const now = Date.now();
      if (now - last < FRAME_MS && !(total !== null && done >= total)) return;
      last = now;
      draw(done, total, label);
    },
    finish() {
      if (drawn) err.write('\r\u001b[K');
    },
  };
}
