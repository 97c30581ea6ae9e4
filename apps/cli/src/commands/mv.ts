/**
 * `recall mv SESSION PROJECT|none`: moves a conversation to a project (named by id, slug or name),
 * or out of any project with `none`, through the store's setSessionProject — the only write that
 * changes ownership, which moves the whole logical conversation (root + compression continuations
 * + delegation children) in one transaction and never touches cwd or messages. A move to where the
 * conversation already is writes nothing and exits 0 with a note on stderr saying so (the wanted
 * state holds; `--json` then prints an empty `sessionIds`), so scripts can re-run a move safely.
 */
import { defineCommand } from './command.js';
import { printJson } from './context.js';
import { resolveProjectRefOnStorage } from './project-ref.js';
import { openCommandStorage } from './command-storage.js';

export const mvCommand = defineCommand<{ json?: boolean }>({
  name: 'mv',
  summary: 'Move a conversation to a project ("none" removes it from its project).',
  usage: 'mv SESSION PROJECT|none [--json]',
  optionsHelp: `  PROJECT           a project id, slug or name (see "recall projects")
  --json            print JSON ({ sessionIds, projectId, previousProjectId })`,
  options: { json: { type: 'boolean' } },
  positionals: { min: 2, max: 2, names: ['SESSION', 'PROJECT (a project id, slug or name, or none)'] },
  servesPostgres: true,
  async run(ctx, { values, positionals }) {
    const [sessionId, target] = positionals as [string, string];
    const opened = await openCommandStorage(ctx, 'mv');
    try {
      const { storage } = opened;
      const session = await storage.sessions.get(sessionId);
      const project = target === 'none' ? null : await resolveProjectRefOnStorage(storage, target);
      const targetId = project?.id ?? null;
      if (session.projectId === targetId) {
        ctx.err.write(`recall mv: ${sessionId} is already ${project ? `in ${project.name} (${project.id})` : 'without a project'}; nothing moved.\n`);
        if (values.json) printJson(ctx.out, { sessionIds: [], projectId: targetId, previousProjectId: targetId });
        return;
      }
      const result = await storage.sessions.move(sessionId, targetId);
      if (values.json) {
        printJson(ctx.out, result);
        return;
      }
      const count = result.sessionIds.length;
      const from = result.previousProjectId === null ? 'no project' : await (async () => {
        const p = await resolveProjectRefOnStorage(storage, result.previousProjectId!);
        return `${p.name} (${p.id})`;
      })();
      ctx.out.write(`Moved ${count} session${count === 1 ? '' : 's'} (${result.sessionIds.join(', ')}) from ${from} to ${project ? `${project.name} (${project.id})` : 'no project'}.\n`);
    } finally {
      await opened.close();
    }
  },
});
