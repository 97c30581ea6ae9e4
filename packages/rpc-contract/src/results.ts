/**
 * What every method answers with: `RPC_RESULT_SCHEMAS`, one zod schema per method of the contract,
 * and `RpcResults` (method → result type) inferred from them, so a type and its schema cannot
 * disagree. The gateway's handlers are checked against `RpcResults` at compile time, the desktop
 * UI is typed by it, and gateway-rpc's result test parses real answers of every method with these
 * schemas, so a drift between store, gateway and contract fails a test.
 */
import { z } from 'zod';
import type { RpcMethodName } from './method-table.js';
import {
  chatCancelResultSchema,
  chatRunOutcomeSchema,
  chatSendStartedSchema,
  chatStatusSchema,
  continuationSchema,
  conversationPageItemSchema,
  conversationPageSchema,
  discoveredFolderSchema,
  gatewayInfoSchema,
  importSummarySchema,
  indexConsentSchema,
  indexDisableResultSchema,
  indexPauseResultSchema,
  indexRebuildResultSchema,
  indexRunResultSchema,
  indexStatusSchema,
  messagePageSchema,
  messageSchema,
  moveResultSchema,
  projectSchema,
  resumeResultSchema,
  sessionSchema,
} from './objects.js';
import { sessionSearchResultSchema } from './session-search.js';

const count = z.number().int().min(0);

/** `rpc.discover`: every method with its summary and the JSON Schema of its params. */
export const rpcDiscoverResultSchema = z.strictObject({
  methods: z.array(z.strictObject({ name: z.string(), summary: z.string(), params: z.record(z.string(), z.unknown()) })),
});
/** The result of `rpc.discover` (see rpcDiscoverResultSchema). */
export type RpcDiscoverResult = z.output<typeof rpcDiscoverResultSchema>;

/** `projects.export` / `conversations.export`: the file to save (name, type, text) and what it holds. */
export const exportResultSchema = z.strictObject({
  fileName: z.string(),
  mimeType: z.string(),
  text: z.string(),
  projects: count,
  sessions: count,
  messages: count,
});
/** What an export answers with (see exportResultSchema). */
export type ExportResult = z.output<typeof exportResultSchema>;

/** `conversations.delete` / `conversations.purge_hidden`: what was removed, and whether the WAL was truncated afterwards. */
export const purgeResultSchema = z.strictObject({
  sessionIds: z.array(z.string()),
  messages: count,
  projectIds: z.array(z.string()),
  scrubbed: z.boolean(),
});
/** What a hard delete answers with (see purgeResultSchema). */
export type PurgeResultWire = z.output<typeof purgeResultSchema>;

/** Method → the schema of its result. */
export const RPC_RESULT_SCHEMAS = {
  'projects.list': z.strictObject({ projects: z.array(projectSchema) }),
  'projects.create': projectSchema,
  'projects.update': projectSchema,
  'projects.archive': projectSchema,
  'projects.delete': z.strictObject({ deleted: z.literal(true) }),
  'projects.folders.add': projectSchema,
  'projects.folders.remove': projectSchema,
  'projects.for_folder': z.strictObject({ project: projectSchema, created: z.boolean() }),
  'projects.discovered': z.strictObject({ folders: z.array(discoveredFolderSchema) }),
  'session.create': sessionSchema,
  'session.resume': resumeResultSchema,
  'session.get': sessionSchema,
  'session.list': z.strictObject({ sessions: z.array(sessionSchema) }),
  'session.messages': z.strictObject({ messages: z.array(messageSchema) }),
  'session.append': messageSchema,
  'session.edit': messageSchema,
  'session.delete': messageSchema,
  'session.rewind': z.strictObject({ rewound: count }),
  'session.compact': z.strictObject({ compacted: count }),
  'session.compress': continuationSchema,
  'session.branch': sessionSchema,
  'session.reset': sessionSchema,
  'session.title': sessionSchema,
  'session.project.set': moveResultSchema,
  'session.cwd.set': sessionSchema,
  'session.workspace.move': sessionSchema,
  'session.page': messagePageSchema,
  'conversations.list': conversationPageSchema,
  'conversations.get': conversationPageItemSchema,
  'search.session_search': sessionSearchResultSchema,
  'index.status': indexStatusSchema,
  'index.project.enable': indexConsentSchema,
  'index.project.disable': indexDisableResultSchema,
  'index.run': indexRunResultSchema,
  'index.pause': indexPauseResultSchema,
  'index.rebuild': indexRebuildResultSchema,
  'import.jsonl': importSummarySchema,
  'chat.status': chatStatusSchema,
  'chat.send': z.union([chatSendStartedSchema, chatRunOutcomeSchema]),
  'chat.cancel': chatCancelResultSchema,
  'chat.compress': continuationSchema,
  'gateway.info': gatewayInfoSchema,
  'rpc.discover': rpcDiscoverResultSchema,
  'projects.export': exportResultSchema,
  'conversations.export': exportResultSchema,
  'conversations.delete': purgeResultSchema,
  'conversations.purge_hidden': purgeResultSchema,
} as const satisfies Record<RpcMethodName, z.ZodType>;

/** Method → result type. */
export type RpcResults = { [M in RpcMethodName]: z.output<(typeof RPC_RESULT_SCHEMAS)[M]> };

/** What method M answers with (`RpcResults[M]`). */
export type RpcResult<M extends RpcMethodName> = RpcResults[M];
