/**
 * `recall serve`: runs the gateway (JSON-RPC over HTTP + WebSocket on 127.0.0.1) and the built
 * desktop UI until SIGINT/SIGTERM. Prints a one-time launch URL for the UI on stdout (first line,
 * so scripts can read it: `http://127.0.0.1:PORT/?launch=CODE`, single use, valid for 5 minutes —
 * opening it gives that browser its session cookie) and, on stderr, where the token is; on a signal it closes the gateway, which stops accepting, waits for every
 * in-flight call (so no acknowledged write is lost) and closes the database, then exits 0.
 * `--sync` also runs live sync of agent transcripts (@recall/importers' LiveSync) until then.
 * Given a PostgreSQL storage (`--database`, RECALL_DATABASE_URL, config.json `storage`), it serves
 * that team database instead of the profile's file: several `recall serve` on one database share
 * it (LISTEN/NOTIFY tells each about the others' writes); keyword search and chat, no semantic
 * index yet. `--sync` there imports through the ports into the team database (several gateways
 * syncing the same transcripts store each message once: sessions and external ids are unique keys).
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LiveSync, syncStatePath } from '@recall/importers';
import { openProfileDatabase } from '@recall/gateway-rpc';
import { GatewayError } from '@recall/gateway-rpc';
import { DEFAULT_LAUNCH_CODE_TTL_MS, startGateway } from '@recall/gateway-rpc';
import { semanticPluginFor } from '../stage-b.js';
import { redactionPolicy } from '../config.js';
import { tokenPath } from '@recall/gateway-rpc';
import { intFlag } from './args.js';
import { defineCommand } from './command.js';
import { defaultUiDir, RECALL_LAUNCHER } from '../install-paths.js';
import type { CliContext } from './context.js';
import { waitForStop } from './signals.js';
import { wrapText } from './style.js';
import { syncConfigOn, syncPassText } from './sync.js';
import { markServing } from './serving-lock.js';
import { openTeamStorage, shownDatabase } from './team-storage.js';
import type { Storage } from '@recall/storage-ports';
import { sqliteStorage } from '@recall/store';
import { displayBaseUrl, resolveChatSettings } from '@recall/chat';
import type { IndexStatus } from '@recall/rpc-contract';

/** One line on semantic search, asked of the running gateway itself (its index service is the truth). */
async function semanticLine(ctx: CliContext, rpcUrl: string, token: string): Promise<string> {
  const configPath = ctx.config.configFile.path;
  let status: IndexStatus['semantic'] | null = null;
  try {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'index.status', params: {} }),
      signal: AbortSignal.timeout(5000),
    });
    status = ((await response.json()) as { result?: IndexStatus }).result?.semantic ?? null;
  } catch {
    status = null;
  }
  if (status === null) return 'unknown (the index status did not answer); see "recall index status"';
  if (!status.configured) return `off — keyword search only. To add meaning-based search, add a "semantic" section to ${configPath} (docs/semantic.md)`;
  if (!status.enabled) return `off — "enabled" is not true in the "semantic" section of ${configPath}`;
  const model = status.provider ? status.provider.model : 'the configured model';
  const on = status.projects.filter((p) => p.status !== 'disabled').length;
  if (status.reason === 'provider_unavailable') return `configured (${model}), but the model does not answer; keyword search works meanwhile`;
  if (on === 0) return `configured (${model}), but no project is switched on yet: recall index enable --project SLUG (or the Index panel)`;
  return `on (${model}) for ${on} of ${status.projects.length} project${status.projects.length === 1 ? '' : 's'}${status.status === 'ready' ? '' : '; indexing in the background'}`;
}

/** One line on the chat model: configured (which, where), or what is missing, in words. */
function chatLine(ctx: CliContext): string {
  let settings: ReturnType<typeof resolveChatSettings>;
  try {
    settings = resolveChatSettings(ctx.config.chat);
  } catch (error) {
    return `not usable — ${(error as Error).message}`;
  }
  if (settings.configured) return `${settings.model} at ${displayBaseUrl(settings.baseUrl)}`;
  const missing = settings.missing.map((m) => (m === 'model' ? 'which model (chat.model in config.json, or RECALL_CHAT_MODEL)' : 'an endpoint or key (chat.baseUrl in config.json or RECALL_CHAT_BASE_URL; RECALL_CHAT_API_KEY)'));
  return `not configured — the chat panel needs ${missing.join(' and ')}; search works without it`;
}

/** Live sync into `storage` (a team database) or, without one, into the profile's file on its own connection. */
async function startSync(ctx: CliContext, storage: Storage | null): Promise<{ stop(): Promise<void> }> {
  // On SQLite, live sync writes through its own connection (WAL: the gateway's readers are never blocked for long).
  const db = storage === null ? openProfileDatabase(ctx.config.home, ctx.config.profile) : null;
  const target: Storage = storage ?? sqliteStorage(db!);
  const { sources, mapping, origin } = await syncConfigOn(ctx, target, {});
  const sync = new LiveSync({
    db: target,
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
      db?.close();
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
  servesPostgres: true,
  async run(ctx, { values }) {
    const team = shownDatabase(ctx);
    const uiDir = values['no-ui'] ? null : values['host-ui'] !== undefined ? resolve(values['host-ui']) : defaultUiDir();
    for (const warning of ctx.config.warnings) ctx.err.write(`recall: warning: ${warning}\n`);
    const stopped = waitForStop();
    // One policy for the process: chat, the index worker and hybrid search count into it (gateway.info shows the counts).
    const redaction = redactionPolicy(ctx.config);
    let gateway: Awaited<ReturnType<typeof startGateway>>;
    // The team database is opened (and migrated) before the gateway starts; the gateway closes it.
    const storage: Storage | null = team !== null ? await openTeamStorage(ctx, 'serve') : null;
    try {
      gateway = await startGateway({
        home: ctx.config.home,
        profile: ctx.config.profile,
        port: ctx.config.port,
        uiDir,
        chat: ctx.config.chat,
        storage,
        // The semantic index and hybrid search run on the storage ports (the profile's file or the team database).
        semantic: await semanticPluginFor({ config: ctx.config.semantic, keys: ctx.config.semanticKeys, redaction }),
        redaction,
        // gateway.info tells MCP clients to start exactly this installation's `recall mcp`.
        launcher: RECALL_LAUNCHER,
      });
    } catch (error) {
      await storage?.close();
      // Another gateway (or any program) holds the port: say so plainly, no stack trace.
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new GatewayError('port_in_use', `port ${ctx.config.port} is in use; use --port N (0 picks a free port)`, { data: { port: ctx.config.port } });
      }
      throw error;
    }
    // `recall restore` refuses while this record names a live process.
    // (A team database has no profile file to replace: nothing to mark.)
    const unmark = team === null ? markServing(ctx.config.home, gateway.profile, 'serve', gateway.url) : () => {};
    // Only the owner sees this line (their terminal, or the script that started us): the link is the key to the UI.
    ctx.out.write(`${gateway.launchUrl()}\n`);
    const { style } = ctx.err;
    const ttlMinutes = Math.round(DEFAULT_LAUNCH_CODE_TTL_MS / 60_000);
    const rows: [string, string][] = [
      ['UI', uiDir === null ? 'not served (--no-ui)' : `open the link above (it works once, for ${ttlMinutes} minutes). A fresh link: curl -H "Authorization: Bearer $(cat ${tokenPath(ctx.config.home)})" ${gateway.url}launch`],
      ...(team !== null ? ([['Storage', `PostgreSQL team database ${team}`]] as [string, string][]) : []),
      ['Semantic search', await semanticLine(ctx, gateway.rpcUrl, gateway.token)],
      ['Chat model', chatLine(ctx)],
      ['Programs', `JSON-RPC at ${gateway.rpcUrl} (HTTP POST or WebSocket), token in ${tokenPath(ctx.config.home)} (Authorization: Bearer <token>)`],
    ];
    const label = (name: string) => `  ${`${name}:`.padEnd(17)}`;
    const text = rows.flatMap(([name, value]) => (ctx.err.isTTY ? wrapText(value, ctx.err.columns, ' '.repeat(19), label(name)) : [`${label(name)}${value}`]));
    ctx.err.write([`${style.bold('Recall is running')} for profile "${gateway.profile}" (home ${ctx.config.home}).`, ...text, '  Press Ctrl-C to stop.', ''].join('\n'));
    // The gateway's own pool on a team database (it closes it after sync stopped).
    const sync = values.sync ? await startSync(ctx, storage) : null;
    const reason = await stopped;
    ctx.err.write(`recall serve: ${reason}, shutting down…\n`);
    await sync?.stop();
    await gateway.close();
    unmark();
    ctx.err.write('recall serve: stopped.\n');
  },
});
