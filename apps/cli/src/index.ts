/**
 * `@recall/cli` is first of all the `recall` command (its `bin`). For programs that want to run it
 * in-process — a desktop shell, a test harness — it also exports the command line itself.
 */
/** Runs `recall` with these arguments in this process and resolves with the exit code (nothing is exited). */
export { main } from './cli.js';
/** Runs `recall` as this process: parses `process.argv`, sets `process.exitCode`. What the bin calls. */
export { runCliProcess } from './cli.js';
/** The installed `@recall/cli` version, as `recall --version` prints it. */
export { CLI_VERSION } from './version.js';
/**
 * Stage B for `startGateway({ semantic })`, composed as `recall serve` does it: loads
 * `@recall/semantic` only when the `semantic` section is there, and reports it unavailable (instead of
 * failing) when that optional package is not installed. Null without a section.
 */
export { semanticPluginFor } from './stage-b.js';
/** The settings `semanticPluginFor` takes: config.json's raw `semantic` section and the endpoint's keys. */
export type { StageBSettings } from './stage-b.js';
