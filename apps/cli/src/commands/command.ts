/**
 * The shape of one CLI command and the wrapper that gives every command the same behaviour:
 * parse its flags (plus `--home/--profile/--help`), print its help on `--help` without touching the
 * home directory, build the CliContext (config + lazily opened database) and close the database
 * when the command returns, whatever happened. Long-running commands (`serve`, `mcp`) resolve only
 * once they have shut down cleanly.
 */
import { parseCommandArgs, type OptionSpec, type Parsed } from './args.js';
import { createCliContext, type CliContext } from './context.js';
import { EXIT_OK, StorageNotServedError } from '../errors.js';
import { wrapText } from './style.js';

export const COMMON_HELP = `Common options:
  --home DIR        Recall home (default: $RECALL_HOME, else ~/.recall)
  --profile NAME    profile, i.e. which database under <home>/profiles (default: $RECALL_PROFILE, else "default")
  --no-color        plain output even on a terminal (also: the NO_COLOR environment variable)
  --database URL    a PostgreSQL team database (default: $RECALL_DATABASE_URL, else config.json "storage")
  -h, --help        show this help`;

/** Column where option descriptions start in help texts. */
const HELP_COLUMN = 20;
/** An option line: `  --name VALUE  description` (VALUE starts with a capital: ID, DIR, P|none, …). */
const OPTION = String.raw`(?:-\w, )?--[\w-]+(?: [A-Z][\w|.-]*)?`;
const OPTION_LINE = new RegExp(String.raw`^  (${OPTION}) +(\S.*)$`);
/** An option alone on its line (its description follows on the next): kept as written. */
const OPTION_ALONE = new RegExp(String.raw`^  ${OPTION}$`);

/**
 * Lays out option lines so the description never runs into the option: short options get their
 * description at column 20, an option too long for that gets it on the next line. Other lines
 * (continuations, subcommand and argument lines) are kept as written.
 */
export function formatOptionsHelp(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const m = OPTION_ALONE.test(line) ? null : OPTION_LINE.exec(line);
      if (!m) return line;
      const [, option, description] = m as unknown as [string, string, string];
      const lead = `  ${option}`;
      return lead.length <= HELP_COLUMN - 2 ? `${lead.padEnd(HELP_COLUMN)}${description}` : `${lead}\n${' '.repeat(HELP_COLUMN)}${description}`;
    })
    .join('\n');
}

/**
 * Writes a help text to stdout; on a terminal narrower than a line, that line wraps with its
 * continuation under the description column (or under its own indentation), never mid-word.
 */
export function printHelp(text: string): void {
  const columns = process.stdout.isTTY ? process.stdout.columns || 80 : 0;
  if (columns === 0) {
    process.stdout.write(text);
    return;
  }
  const lines = text.split('\n').flatMap((line) => {
    if (line.length <= columns) return [line];
    const lead = /^( {2}\S+(?: [A-Z][\w|.-]*)? {2,}| +)/.exec(line)?.[0] ?? '';
    return wrapText(line.slice(lead.length), columns, ' '.repeat(lead.length), lead);
  });
  process.stdout.write(lines.join('\n'));
}

export interface Command {
  readonly name: string;
  readonly summary: string;
  /** Full help text (usage line, description, options). */
  readonly help: string;
  run(args: readonly string[]): Promise<number>;
}

export interface CommandDefinition<V> {
  name: string;
  summary: string;
  usage: string;
  /** Command-specific option lines for the help text (laid out by formatOptionsHelp). */
  optionsHelp?: string;
  /** Example invocations shown at the end of the help text (`recall …` lines). */
  examples?: readonly string[];
  options: OptionSpec;
  positionals: { min: number; max: number; names?: string | readonly string[] };
  /**
   * The command may create the home and the profile's database (import, serve). Every other command
   * only reads or changes existing data, so a home or profile that does not exist (a mistyped
   * `--home`) is an error instead of a silently created empty store.
   */
  createsData?: boolean | ((parsed: Parsed<V>) => boolean);
  /**
   * The command works on a PostgreSQL storage (team mode): those on the storage ports (serve, mcp,
   * import, sync, search, projects, sessions, mv, export, delete, index, migrate); the others
   * (backup, restore) refuse a postgres storage (storage_unsupported) before reading anything.
   */
  servesPostgres?: boolean;
  /** Why the command refuses a postgres storage, for people, when the general sentence would mislead (backup, restore). */
  postgresRefusal?: string;
  /** Flag checks that must report a usage error (exit 2) before the configuration is loaded. */
  check?(parsed: Parsed<V>): void;
  run(ctx: CliContext, parsed: Parsed<V>): Promise<number | void> | number | void;
}

export function defineCommand<V>(definition: CommandDefinition<V>): Command {
  const help = [
    `Usage: recall ${definition.usage}`,
    '',
    definition.summary,
    '',
    ...(definition.optionsHelp ? ['Options:', formatOptionsHelp(definition.optionsHelp), ''] : []),
    COMMON_HELP,
    ...(definition.examples?.length ? ['', 'Examples:', ...definition.examples.map((e) => `  ${e}`)] : []),
    '',
  ].join('\n');
  return {
    name: definition.name,
    summary: definition.summary,
    help,
    async run(args) {
      const parsed = parseCommandArgs<V>(definition.name, args, definition.options, definition.positionals);
      if (parsed.values.help) {
        printHelp(help);
        return EXIT_OK;
      }
      definition.check?.(parsed);
      const ctx = createCliContext({ ...parsed.values, port: (parsed.values as { port?: string }).port }, { createsData: typeof definition.createsData === 'function' ? definition.createsData(parsed) : definition.createsData === true });
      try {
        if (ctx.config.storage.kind === 'postgres' && definition.servesPostgres !== true) throw new StorageNotServedError(definition.name, definition.postgresRefusal);
        return (await definition.run(ctx, parsed)) ?? EXIT_OK;
      } finally {
        ctx.close();
      }
    },
  };
}
