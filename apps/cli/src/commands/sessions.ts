/**
 * `recall sessions`: lists conversations, newest activity first — all of them, one project's
 * (`--project ID`) or those without a project (`--project none`, the "No project" group).
 */
import { resolveProjectRefOnStorage } from './project-ref.js';
import { openCommandStorage } from './command-storage.js';
import { intFlag } from './args.js';
import { defineCommand } from './command.js';
import { isoDate, oneLine, printJson, printTable } from './context.js';

export const sessionsCommand = defineCommand<{ project?: string; all?: boolean; limit?: string; json?: boolean }>({
  name: 'sessions',
  summary: 'List conversations (sessions), newest activity first.',
  usage: 'sessions [--project P|none] [--limit N] [--all] [--json]',
  optionsHelp: `  --project P|none  only this project's sessions (id, slug or name), or "none" for sessions without a project
  --limit N         at most N sessions (1-5000, default 200)
  --all             include archived sessions
  --json            print JSON ({ sessions: [...] })`,
  options: { project: { type: 'string' }, all: { type: 'boolean' }, limit: { type: 'string' }, json: { type: 'boolean' } },
  positionals: { min: 0, max: 0 },
  servesPostgres: true,
  async run(ctx, { values }) {
    const limit = intFlag('sessions', 'limit', values.limit, 1, 5000) ?? 200;
    const target = await openCommandStorage(ctx, 'sessions');
    try {
      const { storage } = target;
      let projectId: string | null | undefined;
      if (values.project === 'none') projectId = null;
      else if (values.project !== undefined) {
        // An unknown project is an error (project_not_found), not an empty list that hides a typo.
        projectId = (await resolveProjectRefOnStorage(storage, values.project)).id;
      }
      const sessions = await storage.sessions.list({ ...(projectId !== undefined ? { projectId } : {}), includeArchived: values.all === true, limit });
      if (values.json) {
        printJson(ctx.out, { sessions });
        return;
      }
      if (sessions.length === 0) {
        ctx.out.write('No sessions.\n');
        return;
      }
      // Names, as the UI shows them; the id stays available through --json and `recall projects`.
      const names = new Map((await storage.projects.list({ includeArchived: true })).map((p) => [p.id, p.name]));
      printTable(
        ctx.out,
        ['ID', 'PROJECT', 'MESSAGES', 'LAST ACTIVITY', 'TITLE'],
        sessions.map((s) => [s.id, s.projectId === null ? '-' : oneLine(names.get(s.projectId) ?? s.projectId, 40), String(s.messageCount), isoDate(s.lastMessageAt ?? s.startedAt), oneLine(s.title ?? '', 80)]),
      );
    } finally {
      await target.close();
    }
  },
});
