/**
 * `recall serve`: runs the gateway (JSON-RPC over HTTP + WebSocket on 127.0.0.1) and the built
 * desktop UI until SIGINT/SIGTERM. Prints the UI URL on stdout (first line, so scripts can read it)
 * and where the token is; on a signal it closes the gateway, which stops accepting, waits for every
 * in-flight call (so no acknowledged write is lost) and closes the database, then exits 0.
 */
import { resolve } from 'node:path';
import { startGateway } from '../server.js';
import { tokenPath } from '../token.js';
import { intFlag } from './args.js';
import { defineCommand } from './command.js';
import { waitForStop } from './signals.js';

export const serveCommand = defineCommand<{ port?: string; 'host-ui'?: string; 'no-ui'?: boolean }>({
  name: 'serve',
  summary: 'Run the gateway (JSON-RPC at /rpc) and the desktop UI on http://127.0.0.1:PORT until Ctrl-C.',
  usage: 'serve [--port N] [--host-ui DIR | --no-ui]',
  optionsHelp: `  --port N          TCP port on 127.0.0.1 (default: $RECALL_PORT, config.json, else 7821; 0 = any free port)
  --host-ui DIR     serve the built desktop UI from DIR (default: apps/desktop-ui/dist when built)
  --no-ui           serve JSON-RPC only`,
  options: { port: { type: 'string' }, 'host-ui': { type: 'string' }, 'no-ui': { type: 'boolean' } },
  positionals: { min: 0, max: 0 },
  // A typo is a usage error; the default/environment/config.json rules for the port live in config.ts.
  check: ({ values }) => void intFlag('serve', 'port', values.port, 0, 65_535),
  async run(ctx, { values }) {
    const uiDir = values['no-ui'] ? null : values['host-ui'] !== undefined ? resolve(values['host-ui']) : undefined;
    const stopped = waitForStop();
    const gateway = await startGateway({ home: ctx.config.home, profile: ctx.config.profile, port: ctx.config.port, uiDir, chat: ctx.config.chat });
    ctx.out.write(`${gateway.url}\n`);
    ctx.err.write(
      [
        `Recall gateway for profile "${gateway.profile}" is listening on ${gateway.url}`,
        `  JSON-RPC: POST ${gateway.rpcUrl} or WebSocket ${gateway.wsUrl}`,
        `  Token:    ${tokenPath(ctx.config.home)} (send as Authorization: Bearer <token>)`,
        '  Press Ctrl-C to stop.',
        '',
      ].join('\n'),
    );
    const reason = await stopped;
    ctx.err.write(`recall serve: ${reason}, shutting down…\n`);
    await gateway.close();
    ctx.err.write('recall serve: stopped.\n');
  },
});
