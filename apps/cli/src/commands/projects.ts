/**
 * `recall projects`: lists the profile's projects (id, slug — the short name `mv`, `sessions`,
 * `index` and `mcp` accept —, conversations counted as the desktop sidebar counts them, folders, name) straight from the store, archived ones with `--all`; `--json` prints
 * the store's Project objects.
 */
import { listConversations, listProjects } from '@recall/store';
import { defineCommand } from './command.js';
import { oneLine, printJson, printTable } from './context.js';

export const projectsCommand = defineCommand<{ all?: boolean; json?: boolean }>({
  name: 'projects',
  summary: 'List the projects of a profile.',
  usage: 'projects [--all] [--json]',
  optionsHelp: `  --all             include archived projects
  --json            print JSON ({ projects: [...] }, each with conversationCount)`,
  options: { all: { type: 'boolean' }, json: { type: 'boolean' } },
  positionals: { min: 0, max: 0 },
  run(ctx, { values }) {
    const db = ctx.db();
    // The sidebar's count: the project's logical conversations (continuations folded in), as
    // conversations.list counts them, not raw session rows.
    const projects = listProjects(db, { includeArchived: values.all === true }).map((p) => ({ ...p, conversationCount: listConversations(db, { projectId: p.id, limit: 1 }).total }));
    if (values.json) {
      printJson(ctx.out, { projects });
      return;
    }
    if (projects.length === 0) {
      ctx.out.write(`No projects in profile "${ctx.config.profile}".\n`);
      return;
    }
    printTable(
      ctx.out,
      ['ID', 'SLUG', 'CONVERSATIONS', 'FOLDER', 'NAME'],
      projects.map((p) => [p.id, oneLine(p.slug, 60), String(p.conversationCount), oneLine(p.folders[0]?.path ?? '-', 60), `${oneLine(p.name, 80)}${p.archived ? ' (archived)' : ''}`]),
    );
  },
});
