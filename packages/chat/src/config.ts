/**
 * Chat settings: turns the raw chat section of the configuration (the host — gateway-rpc's config.ts —
 * reads the environment and `<home>/config.json`; this module never does) into the settings the chat loop runs with —
 * defaults and bounds for the limits, the "is a model configured" rule, and the public status that
 * `chat.status` returns. The API key is carried to the OpenAI client and nowhere else: the public
 * status says only whether one is set, and the base URL is reported without user-info or query
 * string, since either can hold a credential.
 */
import { z } from 'zod';
import { ChatConfigError } from './errors.js';

export const DEFAULT_MAX_TOOL_ROUNDS = 4;
export const DEFAULT_TURN_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_RETRIES = 1;
/** Used when no base URL is configured; an API key is then required. */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export const HOW_TO_CONFIGURE = [
  'Set a chat model and restart `recall serve`:',
  'environment RECALL_CHAT_MODEL (e.g. "gpt-4o-mini" or "qwen2.5:7b"), RECALL_CHAT_BASE_URL (or OPENAI_BASE_URL) for any OpenAI-compatible server',
  '(Ollama http://127.0.0.1:11434/v1, LM Studio http://127.0.0.1:1234/v1, vLLM / llama.cpp server http://127.0.0.1:8000/v1),',
  'and RECALL_CHAT_API_KEY (or OPENAI_API_KEY) when the server needs a key — required for api.openai.com.',
  'Model and base URL can also go in <home>/config.json: {"chat": {"model": "…", "baseUrl": "…"}}; the key is read only from the environment.',
].join(' ');

/** What the gateway is started with: `ChatModelConfig` from loadConfig() fits; tests pass literals. */
export const chatSettingsInputSchema = z
  .object({
    baseUrl: z.url().max(2048).nullish().describe('OpenAI-compatible endpoint; null = api.openai.com'),
    apiKey: z.string().min(1).max(4096).nullish().describe('secret; never returned or logged'),
    model: z.string().min(1).max(200).nullish().describe('chat model name'),
    maxToolRounds: z.number().int().min(1).max(16).default(DEFAULT_MAX_TOOL_ROUNDS).describe('session_search rounds per turn (1-16, default 4)'),
    turnTimeoutMs: z.number().int().min(1_000).max(3_600_000).default(DEFAULT_TURN_TIMEOUT_MS).describe('deadline of one turn in ms (default 120000)'),
    maxRetries: z.number().int().min(0).max(5).default(DEFAULT_MAX_RETRIES).describe('retries of a failed model request (0-5, default 1)'),
  })
  .describe('chat model settings');
export type ChatSettingsInput = z.input<typeof chatSettingsInputSchema>;

export interface ChatSettings {
  /** A model is set, and either a base URL (local servers need no key) or an API key (api.openai.com). */
  readonly configured: boolean;
  /** What is missing when not configured, for the UI's hint. */
  readonly missing: readonly ('model' | 'apiKey or baseUrl')[];
  readonly model: string | null;
  /** Effective endpoint (the OpenAI default when none is configured). */
  readonly baseUrl: string;
  readonly baseUrlConfigured: boolean;
  /** Secret: only handed to the OpenAI client. */
  readonly apiKey: string | null;
  readonly maxToolRounds: number;
  readonly turnTimeoutMs: number;
  readonly maxRetries: number;
}

export function resolveChatSettings(input: ChatSettingsInput | null | undefined): ChatSettings {
  const parsed = chatSettingsInputSchema.safeParse(input ?? {});
  if (!parsed.success) {
    // Never echo the values: one of them may be the key.
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new ChatConfigError(`Invalid chat settings: ${issues.join('; ')}`, { source: 'chat' });
  }
  const s = parsed.data;
  const model = s.model ?? null;
  const apiKey = s.apiKey ?? null;
  const baseUrlConfigured = s.baseUrl !== null && s.baseUrl !== undefined;
  const missing: ChatSettings['missing'][number][] = [];
  if (model === null) missing.push('model');
  if (!baseUrlConfigured && apiKey === null) missing.push('apiKey or baseUrl');
  return {
    configured: missing.length === 0,
    missing,
    model,
    baseUrl: baseUrlConfigured ? s.baseUrl! : OPENAI_DEFAULT_BASE_URL,
    baseUrlConfigured,
    apiKey,
    maxToolRounds: s.maxToolRounds,
    turnTimeoutMs: s.turnTimeoutMs,
    maxRetries: s.maxRetries,
  };
}

/** The endpoint as safe to show: scheme, host, port and path only. */
export function displayBaseUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.protocol}//${url.host}${url.pathname}`.replace(/\/+$/, '');
  } catch {
    return '(invalid URL)';
  }
}

export interface ChatStatusLimits {
  maxToolRounds: number;
  turnTimeoutMs: number;
}

/** The `chat.status` view of the settings: never the key, only whether one is set. */
export function publicChatSettings(settings: ChatSettings): {
  configured: boolean;
  model?: string;
  baseUrl?: string;
  apiKeySet: boolean;
  missing: string[];
  howToConfigure: string;
  limits: ChatStatusLimits;
} {
  return {
    configured: settings.configured,
    ...(settings.model === null ? {} : { model: settings.model }),
    ...(settings.configured || settings.baseUrlConfigured ? { baseUrl: displayBaseUrl(settings.baseUrl) } : {}),
    apiKeySet: settings.apiKey !== null,
    missing: [...settings.missing],
    howToConfigure: HOW_TO_CONFIGURE,
    limits: { maxToolRounds: settings.maxToolRounds, turnTimeoutMs: settings.turnTimeoutMs },
  };
}

/** Removes every occurrence of the key from text that came back from the endpoint (some servers echo it). */
export function redactSecret(text: string, settings: Pick<ChatSettings, 'apiKey'>): string {
  const key = settings.apiKey;
  return key !== null && key.length >= 4 ? text.split(key).join('[redacted]') : text;
}
