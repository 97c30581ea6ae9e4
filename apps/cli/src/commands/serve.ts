/**
 * `recall serve`: runs the gateway (JSON-RPC over HTTP + WebSocket on 127.0.0.1) and the built
 * desktop UI until SIGINT/SIGTERM. Prints a one-time launch URL for the UI on stdout (first line,
 * so scripts can read it: `http://127.0.0.1:PORT/?launch=CODE`, single use, valid for 5 minutes —
 * opening it gives that browser its session cookie) and, on stderr, where the token is; on a signal it closes the gateway, which stops accepting, waits for every
 * in-flight call (so no acknowledged write is lost) and closes the database, then exits 0.
 * `--sync` also runs live sync of agent transcripts (@recall/importers' LiveSync) until then.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LiveSync, syncStatePath } from '@recall/importers';
import { openProfileDatabase } from '@recall/gateway-rpc';
import { GatewayError } from '@recall/gateway-rpc';
import { DEFAULT_LAUNCH_CODE_TTL_MS, startGateway } from '@recall/gateway-rpc';
import { semanticPluginFor } from '../stage-b.js';
import { tokenPath } from '@recall/gateway-rpc';
import { intFlag } from './args.js';
import { defineCommand } from './command.js';
import { defaultUiDir, RECALL_LAUNCHER } from '../install-paths.js';
import type { CliContext } from './context.js';
import { waitForStop } from './signals.js';
import { syncConfig, syncPassText } from './sync.js';
import { markServing } from './serving-lock.js';

async function startSync(ctx: CliContext): Promise<{ stop(): Promise<void> }> {
  const db = openProfileDatabase(ctx.config.home, ctx.config.profile);
  const { sources, mapping, origin } = syncConfig(ctx, db, {});
  const sync = new LiveSync({
    db,
    statePath: syncStatePath(ctx.config.home, ctx.config.profile),
    sources,
    mapping,
    onPass: (r) => ctx.err.write(syncPassText('recall serve: sync', r)),
    onError: (error) => ctx.err.write(`recall serve: sync failed: ${(error as Error).message}\n`),
  });
  ctx.err.write(`recall serve: syncing ${sources.length === 0 ? 'nothing (no transcript folders found)' : sources.map((s) => `${s.format} ${s.path}`).join(', ')} (${origin})\n`);
  await sync.start();
  return {
    stop: async () => {
      await sync.stop();
      db.close();
    },
  };
}


export const serveCommand = defineCommand<{ port?: string; 'host-ui'?: string; 'no-ui'?: boolean; sync?: boolean }>({
  name: 'serve',
  createsData: true,
  summary: 'Run the gateway (JSON-RPC at /rpc) and the desktop UI on http://127.0.0.1:PORT until Ctrl-C.',
  usage: 'serve [--port N] [--host-ui DIR | --no-ui] [--sync]',
  optionsHelp: `  --port N          TCP port on 127.0.0.1 (default: $RECALL_PORT, config.json, else 7821; 0 = any free port)
  --host-ui DIR     serve a built desktop UI from DIR instead of the one this package ships
  --no-ui           serve JSON-RPC only
  --sync            also live-import agent transcripts, with the sources and project mapping saved by the
                    last "recall sync" (else the default locations, no project) — see "recall sync --help"`,
  options: { port: { type: 'string' }, 'host-ui': { type: 'string' }, 'no-ui': { type: 'boolean' }, sync: { type: 'boolean' } },
  positionals: { min: 0, max: 0 },
  // A typo is a usage error; the default/environment/config.json rules for the port live in config.ts.
  check: ({ values }) => void intFlag('serve', 'port', values.port, 0, 65_535),
  async run(ctx, { values }) {
    const uiDir = values['no-ui'] ? null : values['host-ui'] !== undefined ? resolve(values['host-ui']) : defaultUiDir();
    for (const warning of ctx.config.warnings) ctx.err.write(`recall: warning: ${warning}\n`);
    const stopped = waitForStop();
    let gateway: Awaited<ReturnType<typeof startGateway>>;
    try {
      gateway = await startGateway({
        home: ctx.config.home,
        profile: ctx.config.profile,
        port: ctx.config.port,
        uiDir,
        chat: ctx.config.chat,
        semantic: await semanticPluginFor({ config: ctx.config.semantic, keys: ctx.config.semanticKeys }),
        // gateway.info tells MCP clients to start exactly this installation's `recall mcp`.
        launcher: RECALL_LAUNCHER,
      });
    } catch (error) {
      // Another gateway (or any program) holds the port: say so plainly, no stack trace.
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new GatewayError('port_in_use', `port ${ctx.config.port} is in use; use --port N (0 picks a free port)`, { data: { port: ctx.config.port } });
      }
      throw error;
    }
    // `recall restore` refuses while this record names a live process.
    const unmark = markServing(ctx.config.home, gateway.profile, 'serve', gateway.url);
    // Only the owner sees this line (their terminal, or the script that started us): the link is the key to the UI.
    ctx.out.write(`${gateway.launchUrl()}\n`);
    ctx.err.write(
      [
        `Recall gateway for profile "${gateway.profile}" is listening on ${gateway.url}`,
        `  Open the UI with the one-time link above (works once, for ${Math.round(DEFAULT_LAUNCH_CODE_TTL_MS / 60_000)} minutes). A fresh link:`,
        `            curl -H "Authorization: Bearer $(cat ${tokenPath(ctx.config.home)})" ${gateway.url}launch`,
        `  JSON-RPC: POST ${gateway.rpcUrl} or WebSocket ${gateway.wsUrl}`,
        `  Token:    ${tokenPath(ctx.config.home)} (send as Authorization: Bearer <token>)`,
        '  Press Ctrl-C to stop.',
        '',
      ].join('\n'),
    );
    // Live sync writes through its own connection (WAL: the gateway's readers are never blocked for long).
    const sync = values.sync ? await startSync(ctx) : null;
    const reason = await stopped;
    ctx.err.write(`recall serve: ${reason}, shutting down…\n`);
    await sync?.stop();
    await gateway.close();
    unmark();
    ctx.err.write('recall serve: stopped.\n');
  },
});
