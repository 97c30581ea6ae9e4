#!/usr/bin/env node
/**
 * The `recall` command line (bin of @recall/gateway-rpc; `npx -y pnpm@10 recall …` from the repository root).
 * This file owns dispatch and the process's exit code only: it finds the command (global flags may
 * precede it), runs it, and maps what went wrong to an exit code — 2 for usage errors (with a
 * pointer to --help), 1 for typed errors (printed with their stable code), 1 + stack for bugs.
 * Each command lives in its own module under cli/.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { asDiskFullError } from '@recall/store';
import { splitCommand } from './commands/args.js';
import { COMMON_HELP, printHelp, type Command } from './commands/command.js';
import { colorChoiceFor, streamOutput } from './commands/context.js';
import { didYouMean } from './commands/style.js';
import { EXIT_ERROR, EXIT_OK, EXIT_USAGE, stableCode, UsageError } from './errors.js';
import { importCommand } from './commands/import.js';
import { indexCommand } from './commands/index-status.js';
import { mcpCommand } from './commands/mcp.js';
import { migrateCommand } from './commands/migrate.js';
import { mvCommand } from './commands/mv.js';
import { projectsCommand } from './commands/projects.js';
import { searchCommand } from './commands/search.js';
import { serveCommand } from './commands/serve.js';
import { sessionsCommand } from './commands/sessions.js';
import { syncCommand } from './commands/sync.js';
import { backupCommand, restoreCommand } from './commands/backup.js';
import { deleteCommand } from './commands/delete.js';
import { exportCommand } from './commands/export.js';
import { CLI_VERSION } from './version.js';

export const COMMANDS: readonly Command[] = [serveCommand, importCommand, searchCommand, projectsCommand, sessionsCommand, mvCommand, indexCommand, mcpCommand, syncCommand, exportCommand, deleteCommand, backupCommand, restoreCommand, migrateCommand];

function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'Usage: recall <command> [options]',
    '',
    'Project-scoped recall of earlier AI-agent conversations.',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    COMMON_HELP,
    '  --version         print the version',
    '',
    'Run "recall <command> --help" for the options of a command.',
    '',
  ].join('\n');
}

export async function main(argv: readonly string[]): Promise<number> {
  const { command: name, rest } = splitCommand(argv);
  try {
    if (name === null) {
      if (rest.includes('--version')) {
        process.stdout.write(`recall ${CLI_VERSION}\n`);
        return EXIT_OK;
      }
      if (rest.includes('--help') || rest.includes('-h')) {
        printHelp(mainHelp());
        return EXIT_OK;
      }
      throw new UsageError(rest.length === 0 ? 'No command given.' : `No command given (only options: ${rest.join(' ')}).`);
    }
    if (name === 'help') {
      const topic = COMMANDS.find((c) => c.name === rest.find((a) => !a.startsWith('-')));
      printHelp(topic ? topic.help : mainHelp());
      return EXIT_OK;
    }
    const command = COMMANDS.find((c) => c.name === name);
    if (!command) throw new UsageError(`Unknown command ${JSON.stringify(name)}.${didYouMean(name, COMMANDS.map((c) => c.name), (c) => `"recall ${c}"`)}`);
    return await command.run(rest);
  } catch (thrown) {
    // A full disk reached us unmapped (SQLITE_FULL / ENOSPC from any layer): a plain disk_full, no stack.
    const error = asDiskFullError(thrown);
    // The same colour rule as the commands' own output (a terminal, no NO_COLOR / --no-color).
    const { style } = streamOutput(process.stderr, colorChoiceFor({ 'no-color': argv.includes('--no-color') }));
    const prefix = style.red('recall:');
    if (error instanceof UsageError) {
      const hint = error.command ? `recall ${error.command} --help` : 'recall --help';
      process.stderr.write(`${prefix} ${error.message}\n${style.dim(`Run "${hint}" for usage.`)}\n`);
      return EXIT_USAGE;
    }
    const code = stableCode(error);
    if (code !== null) {
      process.stderr.write(`${prefix} ${(error as Error).message} ${style.dim(`[${code}]`)}\n`);
      return EXIT_ERROR;
    }
    process.stderr.write(`${prefix} unexpected error [internal_error]: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT_ERROR;
  }
}

/** True when this module is the process's entry point (also through the pnpm bin symlink). */
function isEntryPoint(): boolean {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

/** Runs the CLI as this process: argv in, exit code out. Used by bin/recall.js and direct `node dist/cli.js`. */
export function runCliProcess(argv: readonly string[] = process.argv.slice(2)): void {
  // `recall sessions | head` closes our stdout early: that is the reader's choice, not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? EXIT_OK);
    throw error;
  });
  // exitCode, not exit(): let stdout drain (large --json output into a pipe) before the process ends.
  main([...argv]).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`recall: ${String(error)}\n`);
      process.exitCode = EXIT_ERROR;
    },
  );
}

if (isEntryPoint()) runCliProcess();
