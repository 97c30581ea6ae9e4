/**
 * ProjectStore: the explicit owners of conversations and their folders (metadata, never the
 * membership rule). Shaped from what callers call today: importers (find/create/forFolder/archive),
 * gateway-rpc `projects.*` methods (create/update/archive/delete/list/folders), the CLI (list,
 * find by reference, covering folder).
 */
import type { DiscoveredFolder, Project } from '@recall/rpc-contract';

/** A new project: `name` is required; `id` (`p_…`) defaults to a new one; `folders` are absolute paths, the first primary. */
export interface NewProject {
  id?: string;
  name: string;
  description?: string | null;
  color?: string | null;
  icon?: string | null;
  folders?: readonly string[];
  /** Accept the user's home folder as a folder (refused otherwise). */
  confirmHome?: boolean;
}

/** Fields of a project to change; omitted fields keep their value, null clears a nullable one. */
export interface ProjectChanges {
  name?: string;
  description?: string | null;
  color?: string | null;
  icon?: string | null;
}

/** Options of ProjectStore.addFolder. */
export interface AddFolderOptions {
  /** Make it the primary folder. */
  primary?: boolean;
  /** Accept the user's home folder. */
  confirmHome?: boolean;
}

/** Projects of one profile (SQLite) or one team database (PostgreSQL). Every write validates before it writes. */
export interface ProjectStore {
  /** Creates a project (unique slug derived from the name). Throws invalid_input, folder_in_use, invalid_folder. */
  create(input: NewProject): Promise<Project>;
  /** Changes name/description/colour/icon. Throws invalid_input, project_not_found. */
  update(projectId: string, changes: ProjectChanges): Promise<Project>;
  /** Archives (or with false unarchives); ownership is kept. Throws project_not_found. */
  archive(projectId: string, archived?: boolean): Promise<Project>;
  /** Hard delete; refused while any session (hidden ones too) belongs to it. Throws project_not_found, project_has_sessions. */
  delete(projectId: string): Promise<void>;
  /** The project, or undefined. */
  find(projectId: string): Promise<Project | undefined>;
  /** The project; throws project_not_found. */
  get(projectId: string): Promise<Project>;
  /** Whether the project exists (archived ones too). */
  exists(projectId: string): Promise<boolean>;
  /** By id, then by slug (the CLI's `--project`). */
  findByRef(ref: string): Promise<Project | undefined>;
  /** Every project, archived ones only when asked; ordered by name. */
  list(options?: { includeArchived?: boolean }): Promise<Project[]>;
  /** Adds a folder. Throws project_not_found, folder_in_use, invalid_folder. */
  addFolder(projectId: string, path: string, options?: AddFolderOptions): Promise<Project>;
  /** Removes a folder. Throws project_not_found. */
  removeFolder(projectId: string, path: string): Promise<Project>;
  /** The project that has exactly this (normalised) folder. */
  findByFolder(path: string): Promise<Project | undefined>;
  /** The project whose folder is `path` or the nearest ancestor of it. */
  coveringFolder(path: string): Promise<Project | undefined>;
  /** The project for a discovered folder, created (named after it) when there is none. */
  forFolder(path: string, options?: { name?: string; confirmHome?: boolean }): Promise<{ project: Project; created: boolean }>;
  /** Working folders of sessions that no project claims yet, most used first. */
  discoveredFolders(options?: { limit?: number }): Promise<DiscoveredFolder[]>;
}
