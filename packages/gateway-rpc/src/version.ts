/**
 * The gateway's version, reported by `gateway.info`: read from this package's own package.json, so
 * it is always the published version (changesets bump it; nothing else to keep in sync).
 */
import { createRequire } from 'node:module';

/** `@recall/gateway-rpc`'s version (package.json `version`). */
export const GATEWAY_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
