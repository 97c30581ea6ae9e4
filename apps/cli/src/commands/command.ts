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

export const COMMON_HELP = `Common options:
  --home DIR        Recall home (default: $RECALL_HOME, else ~/.recall)
  --profile NAME    profile, i.e. which database under <home>/profiles (default: $RECALL_PROFILE, else "default")
  --database URL    a PostgreSQL team database (default: $RECALL_DATABASE_URL, else config.json "storage")
  -h, --help        show this help`;

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
  /** Command-specific option lines for the help text. */
  optionsHelp?: string;
  options: OptionSpec;
  positionals: { min: number; max: number; names?: string | readonly string[] };
  /**
   * The command may create the home and the profile's database (import, serve). Every other command
   * only reads or changes existing data, so a home or profile that does not exist (a mistyped
   * `--home`) is an error instead of a silently created empty store.
   */
  createsData?: boolean;
  /**
   * The command works on a PostgreSQL storage (team mode). Until the callers are on the storage
   * ports only `migrate` does; every other command refuses a postgres storage (storage_unsupported).
   */
  servesPostgres?: boolean;
  /** Flag checks that must report a usage error (exit 2) before the configuration is loaded. */
  check?(parsed: Parsed<V>): void;
  run(ctx: CliContext, parsed: Parsed<V>): Promise<number | void> | number | void;
}

export function defineCommand<V>(definition: CommandDefinition<V>): Command {
  const help = [`Usage: recall ${definition.usage}`, '', definition.summary, '', ...(definition.optionsHelp ? ['Options:', definition.optionsHelp, ''] : []), COMMON_HELP, ''].join('\n');
  return {
    name: definition.name,
    summary: definition.summary,
    help,
    async run(args) {
      const parsed = parseCommandArgs<V>(definition.name, args, definition.options, definition.positionals);
      if (parsed.values.help) {
        process.stdout.write(help);
        return EXIT_OK;
      }
      definition.check?.(parsed);
      const ctx = createCliContext({ ...parsed.values, port: (parsed.values as { port?: string }).port }, { createsData: definition.createsData === true });
      try {
        if (ctx.config.storage.kind === 'postgres' && definition.servesPostgres !== true) throw new StorageNotServedError(definition.name);
        return (await definition.run(ctx, parsed)) ?? EXIT_OK;
      } finally {
        ctx.close();
      }
    },
  };
}
