/**
 * `recall mv SESSION PROJECT|none`: moves a conversation to a project, or out of any project with
 * `none`, through the store's setSessionProject — the only write that changes ownership, which
 * moves the whole logical conversation (root + compression continuations + delegation children)
 * in one transaction and never touches cwd or messages.
 */
import { setSessionProject } from '@recall/store';
import { defineCommand } from './command.js';
import { printJson } from './context.js';

export const mvCommand = defineCommand<{ json?: boolean }>({
  name: 'mv',
  summary: 'Move a conversation to a project ("none" removes it from its project).',
  usage: 'mv SESSION PROJECT|none [--json]',
  optionsHelp: `  --json            print JSON ({ sessionIds, projectId, previousProjectId })`,
  options: { json: { type: 'boolean' } },
  positionals: { min: 2, max: 2, names: 'SESSION and PROJECT (or none)' },
  run(ctx, { values, positionals }) {
    const [sessionId, target] = positionals as [string, string];
    const result = setSessionProject(ctx.db(), sessionId, target === 'none' ? null : target);
    if (values.json) {
      printJson(ctx.out, result);
      return;
    }
    const count = result.sessionIds.length;
    ctx.out.write(
      `Moved ${count} session${count === 1 ? '' : 's'} (${result.sessionIds.join(', ')}) from ${result.previousProjectId ?? 'no project'} to ${result.projectId ?? 'no project'}.\n`,
    );
  },
});
