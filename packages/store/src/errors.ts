/**
 * Typed errors of the store. Each class has a stable string `code` that callers (the tool, the
 * gateway) can switch on; only gateway-rpc maps codes to numeric JSON-RPC errors. Every store write
 * validates before it writes, so an error always means nothing was changed.
 */
export class StoreError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown>;
  constructor(code: string, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

export class ValidationError extends StoreError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('invalid_input', message, details);
  }
}

export class ProjectNotFoundError extends StoreError {
  constructor(projectId: string) {
    super('project_not_found', `No project ${JSON.stringify(projectId)} in this profile.`, { projectId });
  }
}

export class SessionNotFoundError extends StoreError {
  constructor(sessionId: string) {
    super('session_not_found', `No session ${JSON.stringify(sessionId)} in this profile.`, { sessionId });
  }
}

export class MessageNotFoundError extends StoreError {
  constructor(messageId: number) {
    super('message_not_found', `No message ${messageId} in this profile.`, { messageId });
  }
}

export class ProjectHasSessionsError extends StoreError {
  constructor(projectId: string, sessionCount: number) {
    super(
      'project_has_sessions',
      `Project ${projectId} still owns ${sessionCount} conversation(s): move them to another project (or out of any project) before deleting it, or archive it instead.`,
      { projectId, sessionCount },
    );
  }
}

export class ProjectArchivedError extends StoreError {
  constructor(projectId: string, name?: string) {
    const label = name ? `${JSON.stringify(name)} (${projectId})` : projectId;
    super('project_archived', `Project ${label} is archived: unarchive it before adding conversations to it.`, { projectId, ...(name ? { name } : {}) });
  }
}

export class FolderInUseError extends StoreError {
  constructor(path: string, projectId: string) {
    super('folder_in_use', `Folder ${path} already belongs to project ${projectId}.`, { path, projectId });
  }
}

export class SessionExistsError extends StoreError {
  constructor(sessionId: string) {
    super('session_exists', `Session ${JSON.stringify(sessionId)} already exists.`, { sessionId });
  }
}

export class LineageError extends StoreError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('invalid_lineage', message, details);
  }
}

/**
 * A session that already continues in a compression continuation cannot be compressed again: a
 * second continuation would fork one logical conversation into two live ends.
 */
export class SessionAlreadyCompressedError extends StoreError {
  constructor(sessionId: string, continuationId: string) {
    super('session_already_compressed', `Session ${JSON.stringify(sessionId)} was already compressed and continues in ${JSON.stringify(continuationId)}; compress that session instead.`, {
      sessionId,
      continuationId,
    });
  }
}
