/**
 * Projects: the explicit, per-profile owners of conversations. Create (validated name, unique slug,
 * optional folders), update, archive (keeps ownership), hard delete (refused while any session is
 * bound), list with folders and counts, and projectForFolder() which turns a discovered folder into a
 * stable project id without ever writing a path into project_id.
 */
import { basename } from 'node:path';
import { newProjectId, type RecallDatabase } from '@recall/schema';
import { nowMs } from './clock.js';
import { FolderInUseError, ProjectArchivedError, ProjectHasSessionsError, ProjectNotFoundError, ValidationError } from './errors.js';
import { isFilesystemRoot, isUnderFolder, normalizeFolderPath, projectFolderPath } from './folders.js';
import type { Project, ProjectFolder } from './rows.js';
import { prepared, readTransaction, writeTransaction } from './transaction.js';
import { idSchema, parseInput, projectNameSchema, text } from './validation.js';
import { z } from 'zod';

interface ProjectRow {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  color: string | null;
  icon: string | null;
  archived: number;
  created_at: number;
  updated_at: number;
  session_count: number;
}

const optionalText = (max: number) => text(max).nullish();
const colorSchema = z
  .string()
  .regex(/^#[0-9a-fA-F]{3,8}$|^[a-z-]{1,30}$/, 'color must be #rgb[a] hex or a colour name')
  .nullish();

const createProjectSchema = z.object({
  id: z.string().regex(/^p_[A-Za-z0-9_-]{1,64}$/, 'project ids look like p_…').optional(),
  name: projectNameSchema,
  description: optionalText(2000),
  color: colorSchema,
  icon: optionalText(64),
  folders: z.array(z.string()).max(50).optional(),
  confirmHome: z.boolean().optional(),
});
/**
 * Input of `createProject`: `name` (trimmed, 1-120 characters, no control characters) is required;
 * `id` (`p_…`, default a new id), `description` (≤ 2000), `color` (#hex or a colour name), `icon`
 * (≤ 64) and `folders` (≤ 50 absolute paths, the first becomes primary; no filesystem root, the home
 * folder only with `confirmHome: true`) are optional.
 */
export type CreateProjectInput = z.input<typeof createProjectSchema>;

const updateProjectSchema = z.object({
  name: projectNameSchema.optional(),
  description: optionalText(2000),
  color: colorSchema,
  icon: optionalText(64),
});
/**
 * Input of `updateProject`: the fields to change (`name`, `description`, `color`, `icon`); omitted
 * fields keep their value, `null` clears an optional one. A new name gets a new unique slug.
 */
export type UpdateProjectInput = z.input<typeof updateProjectSchema>;

export function slugify(name: string): string {
  const slug = name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return slug || 'project';
}

function uniqueSlug(db: RecallDatabase, name: string, exceptId?: string): string {
  const base = slugify(name);
  const taken = prepared(db, 'select id from projects where slug = ?');
  for (let i = 1; ; i++) {
    const candidate = i === 1 ? base : `${base}-${i}`;
    const owner = taken.pluck().get(candidate) as string | undefined;
    if (owner === undefined || owner === exceptId) return candidate;
  }
}

function foldersOf(db: RecallDatabase, projectId: string): ProjectFolder[] {
  const rows = prepared(db, 'select path, is_primary from project_folders where project_id = ? order by is_primary desc, created_at, path').all(projectId) as {
    path: string;
    is_primary: number;
  }[];
  return rows.map((r) => ({ path: r.path, isPrimary: r.is_primary === 1 }));
}

const PROJECT_SELECT = `select p.*, (select count(*) from sessions s where s.project_id = p.id and s.hidden = 0) as session_count from projects p`;

function toProject(db: RecallDatabase, row: ProjectRow): Project {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    color: row.color,
    icon: row.icon,
    archived: row.archived === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    folders: foldersOf(db, row.id),
    sessionCount: row.session_count,
  };
}

/** The project with this id (folders and session count included), or undefined. */
export function findProject(db: RecallDatabase, projectId: string): Project | undefined {
  const row = prepared(db, `${PROJECT_SELECT} where p.id = ?`).get(projectId) as ProjectRow | undefined;
  return row ? toProject(db, row) : undefined;
}

/** The project with this id; throws ProjectNotFoundError when there is none. */
export function getProject(db: RecallDatabase, projectId: string): Project {
  const project = findProject(db, projectId);
  if (!project) throw new ProjectNotFoundError(projectId);
  return project;
}

/** Throws unless the project exists and accepts new conversations (not archived). */
export function assertProjectAcceptsSessions(db: RecallDatabase, projectId: string): void {
  const row = prepared(db, 'select archived, name from projects where id = ?').get(projectId) as { archived: number; name: string } | undefined;
  if (!row) throw new ProjectNotFoundError(projectId);
  if (row.archived === 1) throw new ProjectArchivedError(projectId, row.name);
}

/**
 * Every project, unarchived first then by name (case-insensitive); archived ones only with
 * `includeArchived: true`.
 */
export function listProjects(db: RecallDatabase, options: { includeArchived?: boolean } = {}): Project[] {
  const where = options.includeArchived ? '' : ' where p.archived = 0';
  const rows = db.raw.prepare(`${PROJECT_SELECT}${where} order by p.archived, lower(p.name), p.created_at`).all() as ProjectRow[];
  return rows.map((r) => toProject(db, r));
}

function insertFolder(db: RecallDatabase, projectId: string, rawPath: string, primary: boolean, confirmHome: boolean | undefined): void {
  const path = projectFolderPath(rawPath, { confirmHome });
  const owner = prepared(db, 'select project_id from project_folders where path = ?').pluck().get(path) as string | undefined;
  if (owner !== undefined) {
    if (owner === projectId) return;
    throw new FolderInUseError(path, owner);
  }
  if (primary) prepared(db, 'update project_folders set is_primary = 0 where project_id = ?').run(projectId);
  prepared(db, 'insert into project_folders (project_id, path, is_primary, created_at) values (?, ?, ?, ?)').run(projectId, path, primary ? 1 : 0, nowMs());
}

/**
 * Creates a project with a unique slug derived from its name and returns it. Throws ValidationError
 * (bad input, or an `id` already taken), FolderPathError (`invalid_folder`: a relative path, a filesystem
 * root, or the home folder without `confirmHome`) and FolderInUseError when a folder belongs to another project.
 */
export function createProject(db: RecallDatabase, input: CreateProjectInput): Project {
  const data = parseInput(createProjectSchema, input, 'project');
  // Before anything is written (inside an outer bulk transaction there is no savepoint to roll back to).
  for (const folder of data.folders ?? []) projectFolderPath(folder, { confirmHome: data.confirmHome });
  return writeTransaction(db, () => {
    const id = data.id ?? newProjectId();
    if (prepared(db, 'select 1 from projects where id = ?').get(id)) throw new ValidationError(`Project id ${id} already exists.`, { projectId: id });
    const now = nowMs();
    prepared(db, 'insert into projects (id, name, slug, description, color, icon, archived, created_at, updated_at) values (?, ?, ?, ?, ?, ?, 0, ?, ?)').run(
      id,
      data.name,
      uniqueSlug(db, data.name),
      data.description ?? null,
      data.color ?? null,
      data.icon ?? null,
      now,
      now,
    );
    (data.folders ?? []).forEach((folder, i) => insertFolder(db, id, folder, i === 0, data.confirmHome));
    return getProject(db, id);
  });
}

/**
 * Updates a project's name, description, color or icon and returns it. Throws ValidationError and
 * ProjectNotFoundError.
 */
export function updateProject(db: RecallDatabase, projectId: string, input: UpdateProjectInput): Project {
  parseInput(idSchema, projectId, 'project id');
  const data = parseInput(updateProjectSchema, input, 'project update');
  return writeTransaction(db, () => {
    const current = getProject(db, projectId);
    const name = data.name ?? current.name;
    prepared(db, 'update projects set name = ?, slug = ?, description = ?, color = ?, icon = ?, updated_at = ? where id = ?').run(
      name,
      name === current.name ? current.slug : uniqueSlug(db, name, projectId),
      data.description === undefined ? current.description : data.description,
      data.color === undefined ? current.color : data.color,
      data.icon === undefined ? current.icon : data.icon,
      nowMs(),
      projectId,
    );
    return getProject(db, projectId);
  });
}

/**
 * Archives (or with `archived = false` unarchives) a project: archived projects leave the default
 * list and accept no new conversations, but their conversations keep their project. Throws
 * ProjectNotFoundError.
 */
export function archiveProject(db: RecallDatabase, projectId: string, archived = true): Project {
  parseInput(idSchema, projectId, 'project id');
  return writeTransaction(db, () => {
    getProject(db, projectId);
    prepared(db, 'update projects set archived = ?, updated_at = ? where id = ?').run(archived ? 1 : 0, nowMs(), projectId);
    return getProject(db, projectId);
  });
}

/**
 * Deletes a project and its folders. Refused with ProjectHasSessionsError while any session (hidden ones
 * included) still belongs to it; throws ProjectNotFoundError when there is none.
 */
export function deleteProject(db: RecallDatabase, projectId: string): void {
  parseInput(idSchema, projectId, 'project id');
  writeTransaction(db, () => {
    getProject(db, projectId);
    const bound = prepared(db, 'select count(*) from sessions where project_id = ?').pluck().get(projectId) as number;
    if (bound > 0) throw new ProjectHasSessionsError(projectId, bound);
    prepared(db, 'delete from projects where id = ?').run(projectId);
  });
}

/**
 * Attaches a folder (normalised) to a project and returns the project; the first folder becomes primary
 * unless `primary` says otherwise. Adding a folder the project already has is a no-op. Throws
 * ProjectNotFoundError, ValidationError (bad path), FolderPathError (see createProject; `confirmHome`
 * accepts the home folder) and FolderInUseError.
 */
export function addProjectFolder(db: RecallDatabase, projectId: string, path: string, options: { primary?: boolean; confirmHome?: boolean } = {}): Project {
  return writeTransaction(db, () => {
    const project = getProject(db, projectId);
    insertFolder(db, projectId, path, options.primary ?? project.folders.length === 0, options.confirmHome);
    prepared(db, 'update projects set updated_at = ? where id = ?').run(nowMs(), projectId);
    return getProject(db, projectId);
  });
}

/**
 * Detaches a folder from a project (a folder it does not have is a no-op) and returns the project.
 * Throws ProjectNotFoundError and ValidationError (bad path).
 */
export function removeProjectFolder(db: RecallDatabase, projectId: string, path: string): Project {
  const normalized = normalizeFolderPath(path);
  return writeTransaction(db, () => {
    getProject(db, projectId);
    prepared(db, 'delete from project_folders where project_id = ? and path = ?').run(projectId, normalized);
    prepared(db, 'update projects set updated_at = ? where id = ?').run(nowMs(), projectId);
    return getProject(db, projectId);
  });
}

/**
 * The project that owns exactly this folder (after normalisation), or undefined. Throws ValidationError
 * for an invalid path.
 */
export function findProjectByFolder(db: RecallDatabase, path: string): Project | undefined {
  const normalized = normalizeFolderPath(path);
  const id = prepared(db, 'select project_id from project_folders where path = ?').pluck().get(normalized) as string | undefined;
  return id === undefined ? undefined : getProject(db, id);
}

/**
 * A discovered folder (a repo root or cwd) as an explicit project: the project that owns the folder,
 * or a new one named after it (`created: true`), deduplicated by normalised path. The path never
 * becomes a project id. Throws ValidationError for an invalid path and FolderPathError (`invalid_folder`)
 * for a relative path or a filesystem root, and for the home folder unless `confirmHome` is true or a
 * project already owns it.
 */
export function projectForFolder(db: RecallDatabase, path: string, options: { name?: string; confirmHome?: boolean } = {}): { project: Project; created: boolean } {
  const normalized = projectFolderPath(path, { confirmHome: true });
  return writeTransaction(db, () => {
    const existing = findProjectByFolder(db, normalized);
    if (existing) return { project: existing, created: false };
    const name = options.name ?? (basename(normalized.replace(/\\/g, '/')) || normalized);
    return { project: createProject(db, { name, folders: [normalized], confirmHome: options.confirmHome }), created: true };
  });
}

/** True when a project with this id exists (archived ones included); one primary-key read. */
export function projectExists(db: RecallDatabase, projectId: string): boolean {
  return readTransaction(db, () => prepared(db, 'select 1 from projects where id = ?').get(projectId) !== undefined);
}

/**
 * A project named by its id or its slug (an id wins), e.g. for `--project ID|SLUG` on a command line;
 * undefined when neither matches.
 */
export function findProjectByRef(db: RecallDatabase, ref: string): Project | undefined {
  const byId = findProject(db, ref);
  if (byId) return byId;
  const id = prepared(db, 'select id from projects where slug = ?').pluck().get(ref) as string | undefined;
  return id === undefined ? undefined : getProject(db, id);
}

/**
 * The project whose folder is `path` or the nearest folder above it (the deepest covering folder wins,
 * so a nested repo mapped to its own project beats its parent's); undefined when none covers it.
 * Folders are metadata: this answers "which project did the user map this directory to". A filesystem
 * root stored by an older version covers nothing. Throws
 * ValidationError for an invalid path.
 */
export function projectCoveringFolder(db: RecallDatabase, path: string): Project | undefined {
  const normalized = normalizeFolderPath(path);
  const folders = prepared(db, 'select project_id, path from project_folders').all() as { project_id: string; path: string }[];
  let best: { project_id: string; path: string } | undefined;
  for (const folder of folders) {
    if (isFilesystemRoot(folder.path)) continue; // stored before roots were refused: it must not cover everything
    if (isUnderFolder(normalized, folder.path) && (best === undefined || folder.path.length > best.path.length)) best = folder;
  }
  return best === undefined ? undefined : getProject(db, best.project_id);
}
