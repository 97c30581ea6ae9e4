/**
 * Typed errors of the chat package. Every class carries a stable string `code` (and optional scalar
 * `data`) that a host can switch on; only gateway-rpc maps codes to numeric JSON-RPC errors (it
 * registers `ChatModuleError` as a domain error base, so the messages below reach the wire as
 * written). `ChatError` is a chat refusal or a chat run that did not complete, with one of the
 * `chat_*` codes of @recall/rpc-contract's error table; `retryable` tells a UI whether "try again"
 * can help (rate limits, unreachable endpoints, deadlines) or the configuration must change first.
 */
import type { ChatErrorCode } from '@recall/rpc-contract';


/** Base of every error this package throws on purpose: a stable `code` and optional scalar details. */
export class ChatModuleError extends Error {
  readonly code: string;
  readonly data: Record<string, unknown> | undefined;
  constructor(code: string, message: string, options?: { cause?: unknown; data?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ChatModuleError';
    this.code = code;
    this.data = options?.data;
  }
}

/** A chat refusal or a run that did not complete; codes are the `chat_*` codes of the error table. */
export class ChatError extends ChatModuleError {
  declare readonly code: ChatErrorCode;
  readonly retryable: boolean;
  constructor(code: ChatErrorCode, message: string, options?: { cause?: unknown; data?: Record<string, unknown>; retryable?: boolean }) {
    super(code, message, options);
    this.name = 'ChatError';
    this.retryable = options?.retryable ?? false;
  }
}

/** Invalid chat settings (code `invalid_config`); the message names the fields, never their values. */
export class ChatConfigError extends ChatModuleError {
  constructor(message: string, data?: Record<string, unknown>) {
    super('invalid_config', message, data === undefined ? undefined : { data });
    this.name = 'ChatConfigError';
  }
}

/** `send()` after `shutdown()` began (code `shutting_down`, like the gateway's own refusal). */
export class ChatShuttingDownError extends ChatModuleError {
  constructor() {
    super('shutting_down', 'The gateway is shutting down.');
    this.name = 'ChatShuttingDownError';
  }
}
