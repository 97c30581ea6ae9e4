/**
 * `recall delete (--session S | --project P) [--purge-hidden] [--yes]`: delete for real.
 * - `--session S`: the whole logical conversation S belongs to (root, continuations, sub-agent sessions);
 * - `--project P`: the project together with all its conversations;
 * - `--purge-hidden`: only the rewound and soft-deleted messages (of S's conversation, or of every
 *   conversation of P), which otherwise stay stored and recoverable.
 * Messages, keyword index rows and semantic vectors are removed through the storage's PurgeStore,
 * each delete one transaction: on the profile's SQLite file the text is also scrubbed from the file;
 * on a PostgreSQL team database (`--database`) the freed rows leave its files at the next vacuum.
 * Without `--yes` the command asks on a terminal and refuses otherwise (exit 2), so a script must
 * say `--yes`.
 */
import { createInterface } from 'node:readline/promises';
import { StorageUnsupportedError, type PurgeOutcome, type PurgeStore, type Storage } from '@recall/storage-ports';
import { UsageError } from '../errors.js';
import { defineCommand } from './command.js';
import { openCommandStorage } from './command-storage.js';
import { printJson, type CliContext } from './context.js';
import { resolveProjectRefOnStorage } from './project-ref.js';

type Flags = { session?: string; project?: string; 'purge-hidden'?: boolean; yes?: boolean; json?: boolean };

const plural = (n: number, one: string, many = `${one}s`): string => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

async function confirm(question: string): Promise<boolean> {
  if (process.stdin.isTTY !== true || process.stderr.isTTY !== true) {
    throw new UsageError('Nothing was deleted: there is no terminal to ask for confirmation. Add --yes to delete without asking.', 'delete');
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question}\nThis cannot be undone. Type "yes" to delete: `);
    return answer.trim().toLowerCase() === 'yes';
  } finally {
    rl.close();
  }
}

export const deleteCommand = defineCommand<Flags>({
  name: 'delete',
  summary: 'Delete a conversation or a project with its conversations for real (asks first; --yes for scripts).',
  usage: 'delete (--session S | --project P) [--purge-hidden] [--yes] [--json]',
  optionsHelp: `  --session S       any session of the conversation: deletes the whole conversation (continuations, sub-agents)
  --project P       a project id, slug or name: deletes the project and all its conversations
  --purge-hidden    delete only the rewound and deleted messages (kept and recoverable until then)
  --yes             do not ask (needed when there is no terminal, e.g. in scripts)
  --json            print JSON ({ sessionIds, messages, projectIds, scrubbed })`,
  options: { session: { type: 'string' }, project: { type: 'string' }, 'purge-hidden': { type: 'boolean' }, yes: { type: 'boolean' }, json: { type: 'boolean' } },
  positionals: { min: 0, max: 0 },
  check: ({ values }) => {
    if ((values.project === undefined) === (values.session === undefined)) throw new UsageError('Give exactly one of --session S or --project P.', 'delete');
  },
  servesPostgres: true,
  async run(ctx, { values }) {
    const opened = await openCommandStorage(ctx, 'delete');
    try {
      return await deleteOn(ctx, opened.storage, values);
    } finally {
      await opened.close();
    }
  },
});

function purgesOf(storage: Storage): PurgeStore {
  if (!storage.purges) throw new StorageUnsupportedError(storage.kind, 'deleting for real');
  return storage.purges;
}

async function deleteOn(ctx: CliContext, storage: Storage, values: Flags): Promise<number | void> {
  const purges = purgesOf(storage);
  const hiddenOnly = values['purge-hidden'] === true;
  let question: string;
  let act: () => Promise<PurgeOutcome>;
  if (values.session !== undefined) {
    const session = await storage.sessions.get(values.session);
    const name = session.title ? `"${session.title}"` : session.id;
    question = hiddenOnly ? `Delete the rewound and deleted messages of the conversation ${name}?` : `Delete the conversation ${name} (all its segments and messages)?`;
    act = () => (hiddenOnly ? purges.purgeHidden(session.id) : purges.deleteConversation(session.id));
  } else {
    const project = await resolveProjectRefOnStorage(storage, values.project!);
    const sessions = await storage.sessions.list({ projectId: project.id, includeArchived: true, includeHidden: true, limit: 5000 });
    const conversations = sessions.filter((s) => s.lineage !== 'compression' && s.lineage !== 'delegation').length;
    const messages = sessions.reduce((n, s) => n + s.messageCount, 0);
    question = hiddenOnly
      ? `Delete the rewound and deleted messages of every conversation in the project "${project.name}"?`
      : `Delete the project "${project.name}" and its ${plural(conversations, 'conversation')} (${plural(messages, 'message')})?`;
    act = async () => {
      if (!hiddenOnly) return purges.deleteProject(project.id, { withConversations: true });
      const total: PurgeOutcome = { sessionIds: [], messages: 0, projectIds: [project.id], scrubbed: true };
      const done = new Set<string>();
      for (const s of sessions) {
        if (done.has(s.id)) continue;
        const r = await purges.purgeHidden(s.id);
        for (const id of r.sessionIds) done.add(id);
        total.sessionIds.push(...r.sessionIds);
        total.messages += r.messages;
        total.scrubbed &&= r.scrubbed;
      }
      return total;
    };
  }
  if (values.yes !== true && !(await confirm(question))) {
    ctx.err.write('Nothing was deleted.\n');
    return 1;
  }
  const result = await act();
  if (values.json) {
    printJson(ctx.out, result);
    return;
  }
  const what = hiddenOnly ? `${plural(result.messages, 'rewound or deleted message')}` : `${plural(result.sessionIds.length, 'session')} and ${plural(result.messages, 'message')}${values.project !== undefined ? ' and the project' : ''}`;
  const after = result.scrubbed
    ? ''
    : storage.kind === 'postgres'
      ? ' The database server also clears the deleted text from its files at its next vacuum.'
      : ' The text leaves the write-ahead log at the next checkpoint (another program was reading the database).';
  ctx.out.write(`Deleted ${what}.${after}\n`);
}
