/**
 * The structural seam between a host that runs `session_search` and whatever executes it: the tool
 * of this package, a worker pool around it, or a test stand-in. Chat and the gateway type their
 * executor with these shapes; they live here, next to the tool they describe (one name, one home).
 */

/**
 * The trusted call context of `session_search`, set by the host and never taken from tool
 * arguments: the profile the host serves plus either the conversation the model runs in
 * (`currentSessionId`) or, for a host without a Recall session, a project id (`projectId`).
 * It is assignable to {@link SessionSearchContext}, so the tool of this package accepts it as is.
 */
export type SearchCallContext = { profile: string } & (
  | { currentSessionId: string; projectId?: undefined }
  | { currentSessionId?: undefined; projectId: string }
);

/**
 * Anything that runs a `session_search` call: `execute(args, context)` with the model's raw
 * arguments and the trusted context. `createSessionSearchTool()` returns one; so can a worker pool
 * or a stand-in. The result is the tool's JSON result (`SessionSearchResult` for this package's
 * tool); an executor should not throw for bad arguments — the tool reports them as `error` results.
 * If the object also carries `description` / `parameters` (the tool's own metadata), hosts that
 * build model tool definitions (e.g. `@recall/chat`) offer those instead of their defaults.
 */
export interface SessionSearchExecutor {
  /** Runs one call; resolves to the JSON result (may also return it synchronously). */
  execute(args: Record<string, unknown>, context: SearchCallContext): unknown;
}
