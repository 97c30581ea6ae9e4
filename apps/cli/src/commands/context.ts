/**
 * What every CLI command gets: the resolved configuration (via config.ts, the only reader of the
 * environment — the CLI passes its flags as overrides and never looks at process.env itself), a
 * lazily opened profile database that the runner closes after the command, and the output streams.
 * Commands write results to `out` (stdout) and progress/diagnostics to `err` (stderr), so `--json`
 * output can always be piped into another program.
 */
import { existsSync } from 'node:fs';
import { profileDatabasePath, type RecallDatabase } from '@recall/schema';
import { GatewayError } from '@recall/gateway-rpc';
import { colorChoice, loadConfig, type ColorChoice, type RecallConfig } from '../config.js';
import { colorEnabled, columnsOf, createStyle, type Style } from './style.js';
import { tightenHome } from '@recall/gateway-rpc';
import { openProfileDatabase } from '@recall/gateway-rpc';
import type { CommonFlags } from './args.js';

export interface Output {
  write(text: string): void;
  readonly isTTY: boolean;
  readonly columns: number;
  /** Colour for this stream (plain when piped, NO_COLOR or --no-color). */
  readonly style: Style;
}

export interface CliContext {
  readonly config: RecallConfig;
  readonly out: Output;
  readonly err: Output;
  /** Opens the profile database on first use; closed by the runner when the command returns. */
  db(): RecallDatabase;
  /** Closes the database if it was opened (idempotent). */
  close(): void;
}

/** The colour choice for this run: `--no-color` wins, else the environment (config.ts's colorChoice). */
export function colorChoiceFor(flags: { 'no-color'?: boolean | undefined }): ColorChoice {
  return flags['no-color'] === true ? 'never' : colorChoice();
}

export function streamOutput(stream: NodeJS.WriteStream, choice: ColorChoice = 'auto'): Output {
  const style = createStyle(colorEnabled(choice, stream.isTTY === true));
  return {
    style,
    write: (text) => {
      stream.write(text);
    },
    get isTTY() {
      return stream.isTTY === true;
    },
    get columns() {
      return stream.columns || 80; // 0 on a pseudo-terminal without a size
    },
  };
}

/** A read-only command pointed at a home or profile that does not exist (exit 1, code `profile_not_found`). */
export class ProfileNotFoundError extends GatewayError {
  constructor(home: string, profile: string, homeExists: boolean) {
    super(
      'profile_not_found',
      homeExists
        ? `No profile "${profile}" in ${home} (check --profile; "recall import" or "recall serve" creates one).`
        : `No Recall home at ${home} (check --home; "recall import" or "recall serve" creates one).`,
      { data: { home, profile } },
    );
    this.name = 'ProfileNotFoundError';
  }
}

export function createCliContext(flags: CommonFlags & { port?: string | undefined }, options: { createsData?: boolean } = {}): CliContext {
  const config = loadConfig({ overrides: { home: flags.home, profile: flags.profile, port: flags.port, database: flags.database } });
  let db: RecallDatabase | null = null;
  const choice = colorChoiceFor(flags);
  const err = streamOutput(process.stderr, choice);
  return {
    config,
    out: streamOutput(process.stdout, choice),
    err,
    db() {
      if (db === null) {
        if (options.createsData !== true && !existsSync(profileDatabasePath(config.home, config.profile))) {
          throw new ProfileNotFoundError(config.home, config.profile, existsSync(config.home));
        }
        tightenHome(config.home, (message) => err.write(`recall: warning: ${message}\n`));
      }
      db ??= openProfileDatabase(config.home, config.profile);
      return db;
    },
    close() {
      db?.close();
      db = null;
    },
  };
}

/** Pretty JSON for humans and machines alike (one trailing newline). */
export function printJson(out: Output, value: unknown): void {
  out.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Fixed-width table; the last column is never padded (titles may be long). */
export function printTable(out: Output, header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => displayWidth(r[i] ?? ''))));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat(Math.max(0, widths[i]! - displayWidth(c)))))
      .join('  ')
      .trimEnd();
  out.write(`${line(header)}\n`);
  for (const row of rows) out.write(`${line(row)}\n`);
}

/** Terminal columns of a string: CJK and other wide characters take two. */
export function displayWidth(text: string): number {
  return columnsOf(text);
}

export function isoDate(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Collapses whitespace and cuts to `max` characters for one-line display. */
export function oneLine(text: string | null | undefined, max: number): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
