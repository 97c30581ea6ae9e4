/**
 * `recall projects [list]`: lists the profile's projects (id, slug — the short name `mv`, `search`,
 * `sessions`, `index` and `mcp` accept —, conversations counted as the desktop sidebar counts them,
 * folders, name) straight from the store, archived ones with `--all`; `--json` prints the store's
 * Project objects. `recall projects create NAME [--folder DIR]...`, `add-folder PROJECT DIR` and
 * `remove-folder PROJECT DIR` make and change projects through the store (the same writes as the
 * desktop), so `recall mcp --cwd DIR` and `recall search --cwd DIR` work without the desktop.
 * Folders are resolved against the current directory (`--folder .` is this folder); the home folder
 * is refused unless `--confirm-home` says it is meant.
 */
import { resolve } from 'node:path';
import type { Project } from '@recall/rpc-contract';
import type { Storage } from '@recall/storage-ports';
import { normalizeFolderPath } from '@recall/store';
import { GatewayError } from '@recall/gateway-rpc';
import { defineCommand } from './command.js';
import { oneLine, printJson, printTable, type CliContext } from './context.js';
import { resolveProjectRefOnStorage } from './project-ref.js';
import { openCommandStorage } from './command-storage.js';
import { didYouMean } from './style.js';
import { UsageError } from '../errors.js';

const SUBCOMMANDS = ['list', 'create', 'add-folder', 'remove-folder'] as const;
type Sub = (typeof SUBCOMMANDS)[number];
/** Positional arguments each subcommand takes after its name. */
const ARGUMENTS: Record<Sub, readonly string[]> = { list: [], create: ['NAME'], 'add-folder': ['PROJECT', 'DIR'], 'remove-folder': ['PROJECT', 'DIR'] };

interface ProjectsFlags {
  all?: boolean;
  json?: boolean;
  folder?: string[];
  'confirm-home'?: boolean;
}

/** The store's folder_in_use names the other project by id; say which one by slug and how to free the folder. */
async function explainFolderInUse(storage: Storage, error: unknown): Promise<never> {
  // Matched on the code: the SQLite and PostgreSQL adapters throw the same error with the same details.
  if ((error as { code?: unknown }).code === 'folder_in_use') {
    const { path, projectId } = (error as { details: { path: string; projectId: string } }).details;
    const owner = await storage.projects.find(projectId);
    const name = owner ? owner.slug : projectId;
    throw new GatewayError('folder_in_use', `Folder ${path} already belongs to project ${name}${owner ? ` (${owner.id})` : ''}; a folder maps to one project. Free it first: recall projects remove-folder ${name} ${path}`, {
      data: { path, projectId },
    });
  }
  throw error;
}

function describe(project: Project): string {
  const folders = project.folders.map((f) => f.path);
  return `${project.slug} (${project.id}) "${project.name}"${folders.length > 0 ? `, folder${folders.length === 1 ? '' : 's'} ${folders.join(', ')}` : ', no folder'}`;
}

async function list(ctx: CliContext, storage: Storage, where: string, values: ProjectsFlags): Promise<void> {
  // The sidebar's count: the project's logical conversations (continuations folded in), as
  // conversations.list counts them, not raw session rows.
  const projects = await Promise.all(
    (await storage.projects.list({ includeArchived: values.all === true })).map(async (p) => ({ ...p, conversationCount: (await storage.sessions.listConversations({ projectId: p.id, limit: 1 })).total })),
  );
  if (values.json) {
    printJson(ctx.out, { projects });
    return;
  }
  if (projects.length === 0) {
    ctx.out.write(`No projects in ${where}. Create one: recall projects create NAME --folder DIR\n`);
    return;
  }
  printTable(
    ctx.out,
    ['ID', 'SLUG', 'CONVERSATIONS', 'FOLDER', 'NAME'],
    projects.map((p) => [
      p.id,
      oneLine(p.slug, 60),
      String(p.conversationCount),
      oneLine(p.folders[0]?.path ?? '-', 60) + (p.folders.length > 1 ? ` (+${p.folders.length - 1})` : ''),
      `${oneLine(p.name, 80)}${p.archived ? ' (archived)' : ''}`,
    ]),
  );
}

export const projectsCommand = defineCommand<ProjectsFlags>({
  name: 'projects',
  summary: 'List, create and change the projects of a profile (their folders map directories to projects).',
  usage: 'projects [list] [--all] [--json] | projects create NAME [--folder DIR]... | projects add-folder|remove-folder PROJECT DIR',
  optionsHelp: `  list              the projects (the default): id, slug, conversations, folder, name
  create NAME       a new project; its slug (the short name other commands accept) is made from NAME
  add-folder PROJECT DIR
                    map DIR (and everything below it) to PROJECT (id, slug or name)
  remove-folder PROJECT DIR
                    unmap DIR from PROJECT (its conversations stay where they are)
  --folder DIR      with create: a folder of the new project (repeatable; the first is the main one)
  --confirm-home    accept your home folder as a project folder (it covers every folder below it)
  --all             with list: include archived projects
  --json            print JSON ({ projects: [...] }, each with conversationCount; or the project written)`,
  examples: ['recall projects', 'recall projects create "Alpha API" --folder .', 'recall projects add-folder alpha-api ~/src/alpha-web', 'recall mcp --cwd .'],
  options: { all: { type: 'boolean' }, json: { type: 'boolean' }, folder: { type: 'string', multiple: true }, 'confirm-home': { type: 'boolean' } },
  positionals: { min: 0, max: 3 },
  // Creating a project may be the first thing a user does; listing or changing one needs an existing profile.
  createsData: ({ positionals }) => positionals[0] === 'create',
  check({ values, positionals }) {
    const sub = (positionals[0] ?? 'list') as Sub;
    if (!SUBCOMMANDS.includes(sub)) throw new UsageError(`Unknown projects subcommand ${JSON.stringify(positionals[0])}; available: ${SUBCOMMANDS.join(', ')}.${didYouMean(sub, SUBCOMMANDS)}`, 'projects');
    const wanted = ARGUMENTS[sub];
    const given = positionals.slice(1);
    if (given.length < wanted.length) throw new UsageError(`"projects ${sub}" needs ${wanted.slice(given.length).join(' and ')}.`, 'projects');
    if (given.length > wanted.length) throw new UsageError(`Unexpected argument ${JSON.stringify(given[wanted.length])}.`, 'projects');
    if (values.folder !== undefined && sub !== 'create') throw new UsageError('--folder goes with "projects create"; to add a folder to a project use "projects add-folder PROJECT DIR".', 'projects');
    if (values.all && sub !== 'list') throw new UsageError('--all goes with "projects list".', 'projects');
  },
  servesPostgres: true,
  async run(ctx, { values, positionals }) {
    const sub = (positionals[0] ?? 'list') as Sub;
    const target = await openCommandStorage(ctx, 'projects');
    try {
      await (sub === 'list' ? list(ctx, target.storage, target.where, values) : change(ctx, target.storage, sub, values, positionals));
    } finally {
      await target.close();
    }
  },
});

/** create, add-folder and remove-folder: the same writes as the desktop, through the storage ports. */
async function change(ctx: CliContext, storage: Storage, sub: Exclude<Sub, 'list'>, values: ProjectsFlags, positionals: readonly string[]): Promise<void> {
  const confirmHome = values['confirm-home'] === true;
  let project: Project;
  let message: string;
  if (sub === 'create') {
    const name = positionals[1]!;
    try {
      project = await storage.projects.create({ name, folders: (values.folder ?? []).map((f) => resolve(f)), confirmHome });
    } catch (error) {
      return explainFolderInUse(storage, error);
    }
    message = `Created project ${describe(project)}.`;
    const dir = project.folders[0]?.path;
    message += `\n  Search it:       recall search QUERY --project ${project.slug}`;
    message += dir ? `\n  For an agent:    recall mcp --cwd ${dir}` : `\n  Map a folder:    recall projects add-folder ${project.slug} DIR`;
  } else {
    const target = await resolveProjectRefOnStorage(storage, positionals[1]!);
    const dir = resolve(positionals[2]!);
    if (sub === 'add-folder') {
      try {
        project = await storage.projects.addFolder(target.id, dir, { confirmHome });
      } catch (error) {
        return explainFolderInUse(storage, error);
      }
      message = target.folders.some((f) => f.path === normalizeFolderPath(dir)) ? `${target.slug} already has folder ${dir}; nothing changed.` : `Added folder ${dir} to project ${describe(project)}.`;
    } else {
      const had = target.folders.some((f) => f.path === normalizeFolderPath(dir));
      project = await storage.projects.removeFolder(target.id, dir);
      message = had
        ? `Removed folder ${dir} from project ${describe(project)}. Its conversations stay in the project.`
        : `${target.slug} has no folder ${dir}; nothing changed (its folders: ${target.folders.map((f) => f.path).join(', ') || 'none'}).`;
    }
  }
  if (values.json) printJson(ctx.out, { project });
  else ctx.out.write(`${message}\n`);
}
