/**
 * Argument parsing for the `recall` CLI, on node:util `parseArgs` (strict): every command declares
 * its own flags, and `--home`, `--profile` and `--help` are accepted by all of them, before or after
 * the command name. Parse failures become UsageError (exit code 2) naming the command, so the
 * message can point at that command's help. Numbers are checked here (integer, range) because a
 * typo like `--limit ten` is a usage mistake, not a domain error.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { assertProfileName } from '@recall/schema';
import { UsageError } from '../errors.js';
import { didYouMean } from './style.js';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

/** Flags every command accepts. */
export const COMMON_OPTIONS = {
  home: { type: 'string' },
  profile: { type: 'string' },
  database: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  'no-color': { type: 'boolean' },
} as const satisfies OptionSpec;

export interface CommonFlags {
  home?: string | undefined;
  profile?: string | undefined;
  /** A PostgreSQL team database URL (prefer RECALL_DATABASE_URL: a flag shows in `ps`). */
  database?: string | undefined;
  help?: boolean | undefined;
  'no-color'?: boolean | undefined;
}

/** Global flags that take a value: needed to find the command name in `recall --home X cmd …`. */
const VALUE_FLAGS = new Set(['--home', '--profile', '--database']);

/** Splits argv into the command name and the remaining arguments (global flags may come first). */
export function splitCommand(argv: readonly string[]): { command: string | null; rest: string[] } {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (VALUE_FLAGS.has(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith('-')) continue;
    return { command: arg, rest: [...argv.slice(0, i), ...argv.slice(i + 1)] };
  }
  return { command: null, rest: [...argv] };
}

export interface Parsed<V> {
  values: V & CommonFlags;
  positionals: string[];
}

/**
 * Parses `args` for `command` with its own `options` plus the common ones. `positionals` bounds the
 * number of positional arguments (checked only when `--help` is absent).
 */
export function parseCommandArgs<V>(command: string, args: readonly string[], options: OptionSpec, positionals: { min: number; max: number; names?: string | readonly string[] }): Parsed<V> {
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...args], options: { ...COMMON_OPTIONS, ...options }, strict: true, allowPositionals: true }) as typeof parsed;
  } catch (error) {
    let message = (error as Error).message.replace(/\. To specify a positional argument.*$/s, '.');
    // A mistyped flag: name the nearest ones this command has (`--qurey` → --query).
    const unknown = /^Unknown option '--([^'=]+)'/.exec(message)?.[1];
    if (unknown !== undefined) message += didYouMean(unknown, Object.keys({ ...COMMON_OPTIONS, ...options }), (name) => `--${name}`);
    throw new UsageError(message, command);
  }
  const values = parsed.values as V & CommonFlags;
  // A profile name is part of the invocation (it becomes a folder name): `--profile ../x` is a usage mistake.
  if (values.profile !== undefined) {
    try {
      assertProfileName(values.profile);
    } catch {
      throw new UsageError(`--profile must be 1-64 letters, digits, "-" or "_", got ${JSON.stringify(values.profile)}.`, command);
    }
  }
  if (!values.help) {
    const count = parsed.positionals.length;
    if (count < positionals.min) {
      // With one name per position, say exactly which arguments are missing (`mv s1` → PROJECT).
      const names = typeof positionals.names === 'string' ? positionals.names : positionals.names?.slice(count, positionals.min).join(' and ');
      throw new UsageError(`Missing argument${names ? `: ${names}` : ''}.`, command);
    }
    if (count > positionals.max) throw new UsageError(`Unexpected argument ${JSON.stringify(parsed.positionals[positionals.max])}.`, command);
  }
  return { values, positionals: parsed.positionals };
}

/** Parses an integer flag value within bounds, or throws a UsageError. */
export function intFlag(command: string, flag: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value.trim())) throw new UsageError(`--${flag} must be an integer, got ${JSON.stringify(value)}.`, command);
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`--${flag} must be between ${min} and ${max}, got ${value}.`, command);
  return n;
}

/** Requires a string flag. */
export function requireFlag(command: string, flag: string, value: string | undefined): string {
  if (value === undefined || value === '') throw new UsageError(`--${flag} is required.`, command);
  return value;
}

/** Checks an enumerated flag value. */
export function enumFlag<T extends string>(command: string, flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${flag} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}.`, command);
  return value as T;
}
