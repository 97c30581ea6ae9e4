/**
 * The CLI's version, read from this package's own package.json (so `recall --version` and the MCP
 * server's announced version always match what was installed).
 */
import { createRequire } from 'node:module';

/** `@recall/cli`'s version (package.json `version`). */
export const CLI_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
