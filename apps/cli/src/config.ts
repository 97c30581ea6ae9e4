/**
 * Gateway configuration: THE only module in the repository that reads `process.env`. Everything
 * else (server, CLI, handlers, tests) receives a validated `RecallConfig` or explicit options, so a
 * test can never pick up a developer's real `~/.recall` by accident. Sources, highest first:
 * explicit overrides (CLI flags) → environment (`RECALL_HOME`, `RECALL_PROFILE`, `RECALL_PORT`,
 * `RECALL_CHAT_BASE_URL` / `OPENAI_BASE_URL`, `RECALL_CHAT_API_KEY` / `OPENAI_API_KEY`,
 * `RECALL_CHAT_MODEL`, `RECALL_EMBEDDING_API_KEY`, `RECALL_RERANK_API_KEY`) → `<home>/config.json` → defaults.
 * Invalid values raise `ConfigError` (stable code `invalid_config`) naming the offending source.
 * API keys follow `resolveApiKey()`: `OPENAI_API_KEY` goes only to OpenAI's own endpoint (or to the
 * endpoint named by `OPENAI_BASE_URL`, which the same user set for it); any other endpoint needs its
 * Recall-specific key, and a key bound for plain http on a non-loopback host yields a warning.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { assertProfileName, profileDatabasePath } from '@recall/schema';
import { redactStorageUrl, type StorageConfig } from '@recall/storage-ports';
import { z } from 'zod';
import { ConfigError, DEFAULT_PORT, DEFAULT_PROFILE } from '@recall/gateway-rpc';
import { MAX_PATTERN_LENGTH, MAX_PATTERNS, RedactionPatternError, RedactionPolicy, type RedactionPolicyOptions } from '@recall/redaction';

export const CONFIG_FILE_NAME = 'config.json';

export function defaultHome(): string {
  return join(homedir(), '.recall');
}

// One message for every way a port can be wrong ("abc" used to read "expected number, received NaN").
const PORT_ERROR = 'must be a port number from 0 to 65535 (0 picks a free port)';
const portSchema = z.coerce
  .number({ error: PORT_ERROR })
  .int({ error: PORT_ERROR })
  .min(0, { error: PORT_ERROR })
  .max(65_535, { error: PORT_ERROR })
  .describe('TCP port on 127.0.0.1; 0 picks a free port');
const profileSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'use 1-64 letters, digits, "-" or "_"')
  .describe('profile name; each profile is a separate database file');

/**
 * Chat model settings for the chat loop (@recall/chat). Only raw values are read here; defaults and
 * the "is it configured" rule live in @recall/chat's resolveChatSettings, which re-validates the same bounds.
 */
const chatFileSchema = z
  .strictObject({
    baseUrl: z.url().max(2048).optional().describe('OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1'),
    model: z.string().min(1).max(200).optional().describe('chat model name'),
    maxToolRounds: z.number().int().min(1).max(16).optional().describe('session_search rounds per turn before the model must answer (1-16, default 4)'),
    turnTimeoutMs: z.number().int().min(1_000).max(3_600_000).optional().describe('deadline of one chat turn in ms (1000-3600000, default 120000)'),
    maxRetries: z.number().int().min(0).max(5).optional().describe('retries of a failed model request (0-5, default 1)'),
  })
  .describe('chat model settings (the API key is never read from this file)');

const patternSource = z.string().min(1).max(MAX_PATTERN_LENGTH);
const patternFlags = z.string().regex(/^[imsu]{0,4}$/, 'use only the flags i, m, s, u').optional().describe('extra regular-expression flags among i, m, s, u');

/**
 * `privacy.redact`: what is redacted before text leaves the machine (@recall/redaction). Every
 * surface is on unless switched off here; `<private>` spans are never sent either way.
 */
const redactFileSchema = z
  .strictObject({
    extraPatterns: z
      .array(
        z.strictObject({
          name: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'use 1-40 lower-case letters, digits or "_", starting with a letter').describe('the kind shown in the placeholder [redacted:NAME]'),
          pattern: patternSource.describe(`a JavaScript regular expression (at most ${MAX_PATTERN_LENGTH} characters; a named group "secret" narrows what is replaced)`),
          flags: patternFlags,
        }),
      )
      .max(MAX_PATTERNS)
      .optional()
      .describe(`your own secret formats, at most ${MAX_PATTERNS}; patterns that could backtrack catastrophically are refused`),
    allow: z
      .array(z.union([z.string().min(1).max(MAX_PATTERN_LENGTH).describe('a text never redacted (exact match)'), z.strictObject({ pattern: patternSource.describe('texts it fully matches are never redacted'), flags: patternFlags })]))
      .max(MAX_PATTERNS)
      .optional()
      .describe(`texts never redacted, at most ${MAX_PATTERNS} (e.g. a documentation example key)`),
    embedding: z.boolean().optional().describe('redact texts sent to the embedding endpoint (default true)'),
    chat: z.boolean().optional().describe('redact messages sent to the chat model (default true)'),
    search_results: z.boolean().optional().describe('redact session_search results returned to a model, over MCP and in chat (default true)'),
  })
  .describe('secret redaction before text leaves the machine');

const privacyFileSchema = z.strictObject({ redact: redactFileSchema.optional() }).describe('privacy settings');
/** A PostgreSQL connection URL (team mode); it may hold a password, so messages never echo it. */
const databaseUrlSchema = z
  .string()
  .max(4096)
  .regex(/^postgres(ql)?:\/\/[^\s]+$/, 'must be a postgres:// or postgresql:// URL')
  .describe('PostgreSQL connection URL of a team database');
const storageFileSchema = z
  .discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('sqlite') }).describe('one SQLite file per profile under <home>/profiles (default)'),
    z.strictObject({ kind: z.literal('postgres'), url: databaseUrlSchema }).describe('a shared PostgreSQL + pgvector database (team mode)'),
  ])
  .describe('where the data lives');

/** `<home>/config.json`. Strict so that typos are reported instead of silently ignored. */
export const configFileSchema = z
  .strictObject({
    port: portSchema.optional(),
    profile: profileSchema.optional(),
    chat: chatFileSchema.optional(),
    // Owned by the semantic layer (stage B); validated there, carried through opaquely here.
    semantic: z.record(z.string(), z.unknown()).optional().describe('semantic index settings (stage B)'),
    privacy: privacyFileSchema.optional(),
    storage: storageFileSchema.optional(),
  })
  .describe('optional <home>/config.json');
export type ConfigFile = z.infer<typeof configFileSchema>;

const envSchema = z.object({
  RECALL_HOME: z.string().min(1).optional(),
  RECALL_PROFILE: profileSchema.optional(),
  RECALL_PORT: portSchema.optional(),
  OPENAI_BASE_URL: z.url().optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  RECALL_CHAT_BASE_URL: z.url().optional(),
  RECALL_CHAT_API_KEY: z.string().min(1).optional(),
  RECALL_CHAT_MODEL: z.string().min(1).max(200).optional(),
  RECALL_EMBEDDING_API_KEY: z.string().min(1).optional(),
  RECALL_DATABASE_URL: databaseUrlSchema.optional(),
  RECALL_RERANK_API_KEY: z.string().min(1).optional(),
});

export interface ChatModelConfig {
  baseUrl: string | null;
  /** Secret: never log or print; `redactConfig()` hides it. */
  apiKey: string | null;
  model: string | null;
  /** Limits from config.json; undefined = the chat module's defaults. */
  maxToolRounds?: number;
  turnTimeoutMs?: number;
  maxRetries?: number;
}

/**
 * Which API key may go to a model endpoint. A key is a credential for one provider: a generic
 * `OPENAI_API_KEY` exported for other tools must not be handed to whatever `baseUrl` a config file
 * names. So: the dedicated key (`RECALL_CHAT_API_KEY`, `RECALL_EMBEDDING_API_KEY`) always; else
 * `OPENAI_API_KEY` only when the endpoint is OpenAI's (`baseUrl` unset or on api.openai.com) or
 * came from `OPENAI_BASE_URL`. Warnings say when OPENAI_API_KEY was withheld and when a key would
 * travel unencrypted (http) to a host that is not loopback.
 */
export interface ApiKeyInput {
  /** "chat", "embedding" or "rerank": names the variables in warnings. */
  purpose: 'chat' | 'embedding' | 'rerank';
  baseUrl: string | null;
  baseUrlFromOpenAiEnv: boolean;
  dedicatedKey: string | undefined;
  openAiKey: string | undefined;
}

export const OPENAI_API_HOST = 'api.openai.com';

function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

export function resolveApiKey(input: ApiKeyInput): { apiKey: string | null; warnings: string[] } {
  const dedicatedName = input.purpose === 'chat' ? 'RECALL_CHAT_API_KEY' : input.purpose === 'rerank' ? 'RECALL_RERANK_API_KEY' : 'RECALL_EMBEDDING_API_KEY';
  const warnings: string[] = [];
  let url: URL | null = null;
  if (input.baseUrl !== null) {
    try {
      url = new URL(input.baseUrl);
    } catch {
      url = null;
    }
  }
  const openAiEndpoint = input.baseUrl === null || (url !== null && url.protocol === 'https:' && url.hostname.toLowerCase() === OPENAI_API_HOST);
  let apiKey: string | null = input.dedicatedKey ?? null;
  if (apiKey === null && input.openAiKey !== undefined) {
    if (openAiEndpoint || input.baseUrlFromOpenAiEnv) apiKey = input.openAiKey;
    else warnings.push(`OPENAI_API_KEY is not sent to the ${input.purpose} endpoint ${url?.origin ?? input.baseUrl} (it is not OpenAI's); set ${dedicatedName} for that endpoint.`);
  }
  if (apiKey !== null && url !== null && url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    warnings.push(`the ${input.purpose} API key will be sent unencrypted (http) to ${url.host}; use https, or a loopback address for a local model.`);
  }
  return { apiKey, warnings };
}

export interface RecallConfig {
  /** Absolute path of the Recall home directory. */
  home: string;
  profile: string;
  port: number;
  chat: ChatModelConfig;
  /** Raw `semantic` section of config.json, for the semantic layer to validate. */
  semantic: Record<string, unknown> | null;
  /**
   * Secrets for the embedding endpoint (never log or print; `redactConfig()` hides them). The
   * semantic layer decides which one may be sent where (`resolveEmbeddingApiKey`): OPENAI_API_KEY
   * only ever goes to OpenAI's own API.
   */
  semanticKeys: { embeddingApiKey: string | null; openaiApiKey: string | null; rerankApiKey?: string | null };
  /**
   * `privacy.redact` of config.json as the options of a `RedactionPolicy` (@recall/redaction),
   * already checked (its patterns compile and pass the backtracking check). Build the process's
   * policy with `redactionPolicy(config)`.
   */
  redaction: RedactionPolicyOptions;
  /** Where config.json was looked for, and whether it existed. */
  configFile: { path: string; found: boolean };
  /** Things the user should know (an API key withheld or sent over plain http); `serve` prints them. */
  warnings: string[];
  /**
   * Where the data lives: the profile's SQLite file (default) or a PostgreSQL database from
   * `--database`, RECALL_DATABASE_URL or config.json `storage` (that order). The URL may hold a
   * password: print it only through redactStorageUrl (`redactConfig()` does).
   */
  storage: StorageConfig;
}

export interface ConfigOverrides {
  home?: string | undefined;
  profile?: string | undefined;
  port?: number | string | undefined;
  /** `--database URL`: a PostgreSQL team database instead of the profile's SQLite file. */
  database?: string | undefined;
}

export interface LoadConfigOptions {
  overrides?: ConfigOverrides;
  /** Defaults to `process.env`; tests pass a plain object. */
  env?: Readonly<Record<string, string | undefined>>;
}

function fail(source: string, error: z.ZodError): never {
  const issues = error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  throw new ConfigError(`Invalid configuration in ${source}: ${issues.join('; ')}`, { source, issues });
}

/** Empty strings in the environment mean "unset" (a common shell idiom: `RECALL_PORT= recall serve`). */
function cleanEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(envSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') out[key] = value;
  }
  return out;
}

function readConfigFile(path: string): { file: ConfigFile; found: boolean } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { file: {}, found: false };
    throw new ConfigError(`Cannot read ${path}: ${(error as Error).message}`, { source: path });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${path} is not valid JSON: ${(error as Error).message}`, { source: path });
  }
  const parsed = configFileSchema.safeParse(json);
  if (!parsed.success) fail(path, parsed.error);
  return { file: parsed.data, found: true };
}

export function loadConfig(options: LoadConfigOptions = {}): RecallConfig {
  const envParsed = envSchema.safeParse(cleanEnv(options.env ?? process.env));
  if (!envParsed.success) fail('the environment', envParsed.error);
  const env = envParsed.data;
  const overrides = options.overrides ?? {};

  const homeRaw = overrides.home ?? env.RECALL_HOME ?? defaultHome();
  if (homeRaw.trim() === '') throw new ConfigError('The Recall home directory must not be empty.', { source: 'home' });
  const home = isAbsolute(homeRaw) ? resolve(homeRaw) : resolve(process.cwd(), homeRaw);

  const configPath = join(home, CONFIG_FILE_NAME);
  const { file, found } = readConfigFile(configPath);

  let port: number = env.RECALL_PORT ?? file.port ?? DEFAULT_PORT;
  if (overrides.port !== undefined) {
    const parsed = portSchema.safeParse(overrides.port);
    if (!parsed.success) fail('--port', parsed.error);
    port = parsed.data;
  }
  let profile: string = env.RECALL_PROFILE ?? file.profile ?? DEFAULT_PROFILE;
  if (overrides.profile !== undefined) {
    const parsed = profileSchema.safeParse(overrides.profile);
    if (!parsed.success) fail('--profile', parsed.error);
    profile = parsed.data;
  }
  // Same rule as the schema package's profile paths; re-checked so the two can never drift apart.
  assertProfileName(profile);

  // RECALL_CHAT_* first: OPENAI_* may be set for other tools on the same machine.
  const chatBaseUrl = env.RECALL_CHAT_BASE_URL ?? env.OPENAI_BASE_URL ?? file.chat?.baseUrl ?? null;
  const chatKey = resolveApiKey({
    purpose: 'chat',
    baseUrl: chatBaseUrl,
    baseUrlFromOpenAiEnv: env.RECALL_CHAT_BASE_URL === undefined && env.OPENAI_BASE_URL !== undefined,
    dedicatedKey: env.RECALL_CHAT_API_KEY,
    openAiKey: env.OPENAI_API_KEY,
  });

  // The embedding provider's key follows the same rule (the semantic layer picks the key itself with
  // resolveEmbeddingApiKey; here only the warnings are computed, from the raw section).
  const semanticRaw = file.semantic ?? null;
  const embeddingKey =
    semanticRaw?.provider === 'openai-compatible' && typeof semanticRaw.endpoint === 'string'
      ? resolveApiKey({ purpose: 'embedding', baseUrl: semanticRaw.endpoint, baseUrlFromOpenAiEnv: false, dedicatedKey: env.RECALL_EMBEDDING_API_KEY, openAiKey: env.OPENAI_API_KEY })
      : { apiKey: null, warnings: [] as string[] };
  // The reranker's key (semantic.rerank): RECALL_RERANK_API_KEY, by the same rule (resolved here).
  const rerankRaw = semanticRaw?.rerank as { endpoint?: unknown } | undefined;
  const rerankKey =
    rerankRaw && typeof rerankRaw.endpoint === 'string'
      ? resolveApiKey({ purpose: 'rerank', baseUrl: rerankRaw.endpoint, baseUrlFromOpenAiEnv: false, dedicatedKey: env.RECALL_RERANK_API_KEY, openAiKey: env.OPENAI_API_KEY })
      : { apiKey: null, warnings: [] as string[] };

  const redact = file.privacy?.redact;
  const redaction: RedactionPolicyOptions = {
    ...(redact?.extraPatterns ? { extraPatterns: redact.extraPatterns.map((p) => ({ name: p.name, pattern: p.pattern, ...(p.flags ? { flags: p.flags } : {}) })) } : {}),
    ...(redact?.allow ? { allow: redact.allow.map((a) => (typeof a === 'string' ? a : { pattern: a.pattern, ...(a.flags ? { flags: a.flags } : {}) })) } : {}),
    surfaces: { embedding: redact?.embedding !== false, chat: redact?.chat !== false, search_results: redact?.search_results !== false },
  };
  try {
    new RedactionPolicy(redaction); // compiles and checks the patterns now, so a bad one fails at start
  } catch (error) {
    if (error instanceof RedactionPatternError) {
      throw new ConfigError(`Invalid configuration in ${configPath}: privacy.redact: ${error.message}`, { source: configPath, issues: [`privacy.redact: ${error.message}`] });
    }
    throw error;
  }

  return {
    home,
    profile,
    port,
    warnings: [...chatKey.warnings, ...embeddingKey.warnings, ...rerankKey.warnings, ...databaseFlagWarnings(overrides.database)],
    chat: {
      baseUrl: chatBaseUrl,
      apiKey: chatKey.apiKey,
      model: env.RECALL_CHAT_MODEL ?? file.chat?.model ?? null,
      ...(file.chat?.maxToolRounds === undefined ? {} : { maxToolRounds: file.chat.maxToolRounds }),
      ...(file.chat?.turnTimeoutMs === undefined ? {} : { turnTimeoutMs: file.chat.turnTimeoutMs }),
      ...(file.chat?.maxRetries === undefined ? {} : { maxRetries: file.chat.maxRetries }),
    },
    semantic: file.semantic ?? null,
    semanticKeys: { embeddingApiKey: env.RECALL_EMBEDDING_API_KEY ?? null, openaiApiKey: env.OPENAI_API_KEY ?? null, ...(rerankKey.apiKey !== null ? { rerankApiKey: rerankKey.apiKey } : {}) },
    redaction,
    configFile: { path: configPath, found },
    storage: resolveStorage(home, profile, overrides.database, env.RECALL_DATABASE_URL, file.storage),
  };
}

/** The redaction policy of this process, from `config.redaction` (one per process: its counts are the process's). */
export function redactionPolicy(config: Pick<RecallConfig, 'redaction'>): RedactionPolicy {
  return new RedactionPolicy(config.redaction);
}

/** A password on the command line is readable by every user of the machine (`ps`): say so, without the URL. */
function databaseFlagWarnings(flag: string | undefined): string[] {
  if (flag === undefined) return [];
  let password = '';
  try {
    password = new URL(flag).password;
  } catch {
    return [];
  }
  return password ? ['the password in --database is visible to other users of this machine (ps); put the URL in RECALL_DATABASE_URL or config.json "storage" instead.'] : [];
}

/**
 * How a profile maps to a team database: `{profile}` anywhere in the URL is replaced by the profile
 * name (profile names are letters, digits, `-` and `_`), so `postgres://host/recall_{profile}` gives
 * each profile its own database. A URL without it is one database shared by every profile.
 */
function forProfile(url: string, profile: string): string {
  return url.split('{profile}').join(profile);
}

/** --database, then RECALL_DATABASE_URL, then config.json `storage`, else the profile's SQLite file. */
function resolveStorage(home: string, profile: string, flag: string | undefined, envUrl: string | undefined, file: ConfigFile['storage']): StorageConfig {
  if (flag !== undefined) {
    const parsed = databaseUrlSchema.safeParse(flag);
    // The zod issue would not echo the value, but say so plainly: the flag may carry a password.
    if (!parsed.success) throw new ConfigError('Invalid configuration in --database: must be a postgres:// or postgresql:// URL (the value is not shown).', { source: '--database' });
    return { kind: 'postgres', url: forProfile(parsed.data, profile) };
  }
  const url = envUrl ?? (file?.kind === 'postgres' ? file.url : undefined);
  if (url !== undefined) return { kind: 'postgres', url: forProfile(url, profile) };
  return { kind: 'sqlite', path: profileDatabasePath(home, profile) };
}

/** A copy safe to print or log: secrets replaced by a marker saying whether they are set. */
export function redactConfig(config: RecallConfig): Omit<RecallConfig, 'chat' | 'semanticKeys'> & {
  chat: Omit<ChatModelConfig, 'apiKey'> & { apiKey: 'set' | null };
  semanticKeys: { embeddingApiKey: 'set' | null; openaiApiKey: 'set' | null; rerankApiKey?: 'set' };
} {
  const mark = (v: string | null) => (v === null ? null : ('set' as const));
  return {
    ...config,
    storage: config.storage.kind === 'postgres' ? { ...config.storage, url: redactStorageUrl(config.storage.url) } : config.storage,
    chat: { ...config.chat, apiKey: mark(config.chat.apiKey) },
    semanticKeys: {
      embeddingApiKey: mark(config.semanticKeys.embeddingApiKey),
      openaiApiKey: mark(config.semanticKeys.openaiApiKey),
      ...(config.semanticKeys.rerankApiKey ? { rerankApiKey: 'set' as const } : {}),
    },
  };
}

/**
 * Whether the CLI colours its output: `never` when `NO_COLOR` is set to anything non-empty
 * (no-color.org), `always` when `FORCE_COLOR` is set and not "0" (for pagers such as `less -R`,
 * and how the tests see colour without a terminal), else `auto` (colour on a terminal only).
 * `--no-color` on the command line wins over both.
 */
export type ColorChoice = 'auto' | 'always' | 'never';

export function colorChoice(env: Readonly<Record<string, string | undefined>> = process.env): ColorChoice {
  if ((env.NO_COLOR ?? '') !== '') return 'never';
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '' && force !== '0' && force !== 'false') return 'always';
  return 'auto';
}
