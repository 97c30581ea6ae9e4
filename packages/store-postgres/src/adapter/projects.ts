/**
 * ProjectStore on PostgreSQL: the rules of @recall/store's projects.ts (validation, unique slug,
 * folder checks, delete refused while any session belongs to the project) with the same typed
 * errors (@recall/store/portable). A slug taken concurrently by another writer is retried.
 */
import { basename } from 'node:path';
import type { Project } from '@recall/rpc-contract';
import { FolderInUseError, ProjectHasSessionsError, ProjectNotFoundError, ValidationError } from '@recall/store/portable';
import { idSchema, isFilesystemRoot, isUnderFolder, normalizeFolderPath, parseInput, projectFolderPath, projectNameSchema, boundedText } from '@recall/store/portable';
import type { NewProject, ProjectStore } from '@recall/storage-ports';
import type pg from 'pg';
import { z } from 'zod';
import { isUniqueViolation, newProjectId, nowMs, toProject, write, type Db, type Tx } from './tx.js';

const optionalText = (max: number) => boundedText(max).nullish();
const colorSchema = z
  .string()
  .regex(/^#[0-9a-fA-F]{3,8}$|^[a-z-]{1,30}$/, 'color must be #rgb[a] hex or a colour name')
  .nullish();
const createSchema = z.object({
  id: z.string().regex(/^p_[A-Za-z0-9_-]{1,64}$/, 'project ids look like p_…').optional(),
  name: projectNameSchema,
  description: optionalText(2000),
  color: colorSchema,
  icon: optionalText(64),
  folders: z.array(z.string()).max(50).optional(),
  confirmHome: z.boolean().optional(),
});
const updateSchema = z.object({ name: projectNameSchema.optional(), description: optionalText(2000), color: colorSchema, icon: optionalText(64) });

/** As @recall/store's slugify. */
function slugify(name: string): string {
  const slug = name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return slug || 'project';
}

async function uniqueSlug(tx: Tx, name: string, exceptId?: string): Promise<string> {
  const base = slugify(name);
  const taken = new Map((await tx.query('select slug, id from projects where slug = $1 or slug like $2', [base, `${base}-%`])).rows.map((r) => [r.slug as string, r.id as string]));
  for (let i = 1; ; i++) {
    const candidate = i === 1 ? base : `${base}-${i}`;
    const owner = taken.get(candidate);
    if (owner === undefined || owner === exceptId) return candidate;
  }
}

const PROJECT_SELECT = 'select p.*, (select count(*) from sessions s where s.project_id = p.id and not s.hidden) as session_count from projects p';

async function loadProjects(q: Tx | pg.Pool, where: string, params: unknown[]): Promise<Project[]> {
  const rows = (await q.query(`${PROJECT_SELECT} ${where}`, params)).rows;
  if (rows.length === 0) return [];
  const folders = (await q.query('select project_id, path, is_primary from project_folders where project_id = any($1) order by is_primary desc, created_at, path', [rows.map((r) => r.id)])).rows;
  return rows.map((r) =>
    toProject(
      r,
      folders.filter((f) => f.project_id === r.id).map((f) => ({ path: f.path as string, isPrimary: f.is_primary === true })),
    ),
  );
}

async function findProject(q: Tx | pg.Pool, projectId: string): Promise<Project | undefined> {
  return (await loadProjects(q, 'where p.id = $1', [projectId]))[0];
}

async function getProject(q: Tx | pg.Pool, projectId: string): Promise<Project> {
  const project = await findProject(q, projectId);
  if (!project) throw new ProjectNotFoundError(projectId);
  return project;
}

async function insertFolder(tx: Tx, projectId: string, rawPath: string, primary: boolean, confirmHome: boolean | undefined): Promise<void> {
  const path = projectFolderPath(rawPath, { confirmHome });
  const owner = (await tx.query('select project_id from project_folders where path = $1', [path])).rows[0]?.project_id as string | undefined;
  if (owner !== undefined) {
    if (owner === projectId) return;
    throw new FolderInUseError(path, owner);
  }
  if (primary) await tx.query('update project_folders set is_primary = false where project_id = $1', [projectId]);
  try {
    await tx.query('savepoint folder');
    await tx.query('insert into project_folders (project_id, path, is_primary, created_at) values ($1, $2, $3, $4)', [projectId, path, primary, nowMs()]);
    await tx.query('release savepoint folder');
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    await tx.query('rollback to savepoint folder');
    const other = (await tx.query('select project_id from project_folders where path = $1', [path])).rows[0]?.project_id as string;
    throw new FolderInUseError(path, other);
  }
}

async function createProjectTx(tx: Tx, input: NewProject): Promise<Project> {
  const data = parseInput(createSchema, { ...input, ...(input.folders ? { folders: [...input.folders] } : {}) }, 'project');
  for (const folder of data.folders ?? []) projectFolderPath(folder, { confirmHome: data.confirmHome });
  const id = data.id ?? newProjectId();
  if ((await tx.query('select 1 from projects where id = $1', [id])).rowCount) throw new ValidationError(`Project id ${id} already exists.`, { projectId: id });
  const now = nowMs();
  for (let attempt = 0; ; attempt++) {
    const slug = await uniqueSlug(tx, data.name);
    try {
      await tx.query('savepoint slug');
      await tx.query('insert into projects (id, name, slug, description, color, icon, archived, created_at, updated_at) values ($1, $2, $3, $4, $5, $6, false, $7, $7)', [
        id,
        data.name,
        slug,
        data.description ?? null,
        data.color ?? null,
        data.icon ?? null,
        now,
      ]);
      await tx.query('release savepoint slug');
      break;
    } catch (error) {
      await tx.query('rollback to savepoint slug');
      if (isUniqueViolation(error, 'projects_pkey')) throw new ValidationError(`Project id ${id} already exists.`, { projectId: id });
      if (!isUniqueViolation(error, 'projects_slug_uq') || attempt >= 5) throw error;
    }
  }
  for (const [i, folder] of (data.folders ?? []).entries()) await insertFolder(tx, id, folder, i === 0, data.confirmHome);
  return getProject(tx, id);
}

/** The ProjectStore of a PostgreSQL team database. */
export function postgresProjects(pool: Db): ProjectStore {
  return {
    create: (input) => write(pool, (tx) => createProjectTx(tx, input)),
    async update(projectId, changes) {
      parseInput(idSchema, projectId, 'project id');
      const data = parseInput(updateSchema, changes, 'project update');
      return write(pool, async (tx) => {
        const current = await getProject(tx, projectId);
        const name = data.name ?? current.name;
        await tx.query('update projects set name = $1, slug = $2, description = $3, color = $4, icon = $5, updated_at = $6 where id = $7', [
          name,
          name === current.name ? current.slug : await uniqueSlug(tx, name, projectId),
          data.description === undefined ? current.description : data.description,
          data.color === undefined ? current.color : data.color,
          data.icon === undefined ? current.icon : data.icon,
          nowMs(),
          projectId,
        ]);
        return getProject(tx, projectId);
      });
    },
    async archive(projectId, archived = true) {
      parseInput(idSchema, projectId, 'project id');
      return write(pool, async (tx) => {
        await getProject(tx, projectId);
        await tx.query('update projects set archived = $1, updated_at = $2 where id = $3', [archived, nowMs(), projectId]);
        return getProject(tx, projectId);
      });
    },
    async delete(projectId) {
      parseInput(idSchema, projectId, 'project id');
      await write(pool, async (tx) => {
        // FOR UPDATE: a session being created in this project concurrently waits (its FK check
        // takes a KEY SHARE lock on this row), so the count below cannot go stale before the delete.
        const row = (await tx.query('select id from projects where id = $1 for update', [projectId])).rows[0];
        if (!row) throw new ProjectNotFoundError(projectId);
        const bound = Number((await tx.query('select count(*) as n from sessions where project_id = $1', [projectId])).rows[0].n);
        if (bound > 0) throw new ProjectHasSessionsError(projectId, bound);
        await tx.query('delete from projects where id = $1', [projectId]);
      });
    },
    find: (projectId) => findProject(pool, projectId),
    get: (projectId) => getProject(pool, projectId),
    async exists(projectId) {
      return ((await pool.query('select 1 from projects where id = $1', [projectId])).rowCount ?? 0) > 0;
    },
    async findByRef(ref) {
      return (await findProject(pool, ref)) ?? (await loadProjects(pool, 'where p.slug = $1', [ref]))[0];
    },
    async list(options = {}) {
      return loadProjects(pool, `${options.includeArchived ? '' : 'where not p.archived'} order by p.archived, lower(p.name), p.created_at`, []);
    },
    addFolder: (projectId, path, options = {}) =>
      write(pool, async (tx) => {
        const project = await getProject(tx, projectId);
        await insertFolder(tx, projectId, path, options.primary ?? project.folders.length === 0, options.confirmHome);
        await tx.query('update projects set updated_at = $1 where id = $2', [nowMs(), projectId]);
        return getProject(tx, projectId);
      }),
    async removeFolder(projectId, path) {
      const normalized = normalizeFolderPath(path);
      return write(pool, async (tx) => {
        await getProject(tx, projectId);
        await tx.query('delete from project_folders where project_id = $1 and path = $2', [projectId, normalized]);
        await tx.query('update projects set updated_at = $1 where id = $2', [nowMs(), projectId]);
        return getProject(tx, projectId);
      });
    },
    async findByFolder(path) {
      const normalized = normalizeFolderPath(path);
      const id = (await pool.query('select project_id from project_folders where path = $1', [normalized])).rows[0]?.project_id as string | undefined;
      return id === undefined ? undefined : getProject(pool, id);
    },
    async coveringFolder(path) {
      const normalized = normalizeFolderPath(path);
      const folders = (await pool.query('select project_id, path from project_folders')).rows as Array<{ project_id: string; path: string }>;
      let best: { project_id: string; path: string } | undefined;
      for (const folder of folders) {
        if (isFilesystemRoot(folder.path)) continue;
        if (isUnderFolder(normalized, folder.path) && (best === undefined || folder.path.length > best.path.length)) best = folder;
      }
      return best === undefined ? undefined : getProject(pool, best.project_id);
    },
    async forFolder(path, options = {}) {
      const normalized = projectFolderPath(path, { confirmHome: true });
      return write(pool, async (tx) => {
        // One writer per folder at a time, so two importers do not both create the project.
        await tx.query("select pg_advisory_xact_lock(hashtextextended('recall.folder:' || $1, 0))", [normalized]);
        const id = (await tx.query('select project_id from project_folders where path = $1', [normalized])).rows[0]?.project_id as string | undefined;
        if (id !== undefined) return { project: await getProject(tx, id), created: false };
        const name = options.name ?? (basename(normalized.replace(/\\/g, '/')) || normalized);
        return { project: await createProjectTx(tx, { name, folders: [normalized], ...(options.confirmHome !== undefined ? { confirmHome: options.confirmHome } : {}) }), created: true };
      });
    },
    async discoveredFolders(options = {}) {
      // The same rule as @recall/store's discoveredFolders (git root over cwd, nothing a project folder covers).
      const rows = (
        await pool.query(
          `select coalesce(git_repo_root, cwd) as path, count(*) as n from sessions
            where not hidden and coalesce(git_repo_root, cwd) is not null and coalesce(git_repo_root, cwd) <> ''
            group by 1 order by n desc, path collate "C"`,
        )
      ).rows as Array<{ path: string; n: string }>;
      const folders = (await pool.query('select path from project_folders')).rows.map((r) => r.path as string);
      const out: Array<{ path: string; sessionCount: number }> = [];
      const seen = new Map<string, { path: string; sessionCount: number }>();
      for (const row of rows) {
        let path: string;
        try {
          path = projectFolderPath(row.path, { confirmHome: true });
        } catch {
          continue;
        }
        if (folders.some((f) => isUnderFolder(path, f))) continue;
        const existing = seen.get(path);
        if (existing) existing.sessionCount += Number(row.n);
        else {
          const entry = { path, sessionCount: Number(row.n) };
          seen.set(path, entry);
          out.push(entry);
        }
      }
      return out.slice(0, options.limit ?? 50);
    },
  };
}
