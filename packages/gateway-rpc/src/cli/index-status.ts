/**
 * `recall index status`: the same report as the gateway's `index.status` method (keyword counts,
 * semantic state), produced by running that very method in-process over the profile's database,
 * so the CLI and the desktop can never disagree. `index run|rebuild` belong to the semantic layer
 * (stage B) and are refused with a usage error until it exists.
 */
import { EventHub } from '../events.js';
import { consoleLogger, type CallContext } from '../context.js';
import { dispatch } from '../jsonrpc.js';
import { createMethodRegistry } from '../methods/index.js';
import type { IndexStatus } from '../methods/index-status.js';
import { defineCommand } from './command.js';
import { printJson } from './context.js';
import { UsageError } from './errors.js';
import { GatewayError } from '../errors.js';

export const indexCommand = defineCommand<{ json?: boolean }>({
  name: 'index',
  summary: 'Show the state of the keyword and semantic indexes.',
  usage: 'index status [--json]',
  optionsHelp: `  --json            print JSON (the index.status result)`,
  options: { json: { type: 'boolean' } },
  positionals: { min: 1, max: 1, names: 'a subcommand (status)' },
  async run(ctx, { values, positionals }) {
    if (positionals[0] !== 'status') throw new UsageError(`Unknown index subcommand ${JSON.stringify(positionals[0])}; available: status.`, 'index');
    const callCtx: CallContext = {
      db: ctx.db(),
      home: ctx.config.home,
      profile: ctx.config.profile,
      events: new EventHub(),
      logger: consoleLogger,
      searchTool: null,
      transport: 'direct',
    };
    const response = await dispatch(createMethodRegistry(), { jsonrpc: '2.0', id: 1, method: 'index.status' }, callCtx);
    if (response === null || Array.isArray(response) || 'error' in response) {
      const error = response !== null && !Array.isArray(response) && 'error' in response ? response.error : null;
      const data = error?.data as { code?: string } | undefined;
      throw new GatewayError(data?.code ?? 'internal_error', error?.message ?? 'index.status failed');
    }
    const status = response.result as IndexStatus;
    if (values.json) {
      printJson(ctx.out, status);
      return;
    }
    const s = status.semantic;
    const coverage = s.coverage === undefined ? '' : s.coverage === 'unknown' ? ' (coverage unknown)' : ` (${s.coverage.indexed}/${s.coverage.total} chunks)`;
    ctx.out.write(
      [
        `Profile:  ${ctx.config.profile} (${ctx.config.home})`,
        `Keyword:  ready — ${status.keyword.messages} messages in ${status.keyword.sessions} sessions`,
        `Semantic: ${s.status}${coverage}${s.reason ? ` — ${s.reason}` : ''}`,
        ...(s.howToConfigure ? [`          ${s.howToConfigure}`] : []),
        '',
      ].join('\n'),
    );
  },
});
