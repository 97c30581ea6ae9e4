/**
 * How a chat run that did not complete is named: every failure of the model endpoint, of the
 * stream or of the run itself becomes a `ChatError` with one of the stable `chat_*` codes (see
 * DOMAIN_ERROR_CODES in @recall/rpc-contract and docs/rpc.md), so a UI can match on the code and the
 * gateway never crashes on an endpoint's behaviour. The mapping follows what the user has to do:
 * fix the key (auth), fix the model name / base URL (not found), wait (rate limit, unreachable,
 * 5xx) or nothing at all (cancelled). Messages may quote the endpoint's own error text, bounded and
 * with the API key cut out, because "model 'x' not found" is exactly what the user needs to read.
 */
import { APIConnectionError, APIError, APIUserAbortError, OpenAIError } from 'openai';
import { ChatError } from './errors.js';
import { displayBaseUrl, redactSecret, type ChatSettings } from './config.js';

/** Why the gateway aborted a run itself. */
export type AbortReason = 'cancelled' | 'deadline' | 'shutdown';

const MAX_ENDPOINT_TEXT = 500;

function endpointText(error: Error, settings: Pick<ChatSettings, 'apiKey'>): string {
  const text = redactSecret(error.message, settings).replace(/\s+/g, ' ').trim();
  return text.length > MAX_ENDPOINT_TEXT ? `${text.slice(0, MAX_ENDPOINT_TEXT - 1)}…` : text;
}

export function abortError(reason: AbortReason, settings: Pick<ChatSettings, 'turnTimeoutMs'>): ChatError {
  switch (reason) {
    case 'cancelled':
      return new ChatError('chat_cancelled', 'The answer was cancelled (chat.cancel).', { data: { reason } });
    case 'shutdown':
      return new ChatError('chat_cancelled', 'The answer was cancelled because the gateway is shutting down.', { data: { reason }, retryable: true });
    case 'deadline':
      return new ChatError('chat_deadline_exceeded', `The answer did not finish within the per-turn deadline of ${settings.turnTimeoutMs} ms.`, {
        data: { turnTimeoutMs: settings.turnTimeoutMs },
        retryable: true,
      });
  }
}

/** Maps anything thrown while talking to the endpoint (or while persisting) to a ChatError. */
export function classifyChatError(error: unknown, settings: ChatSettings): ChatError {
  if (error instanceof ChatError) return error;
  const where = displayBaseUrl(settings.baseUrl);
  if (error instanceof APIUserAbortError) return new ChatError('chat_cancelled', 'The request to the model was aborted.');
  if (error instanceof APIConnectionError) {
    return new ChatError('chat_model_unreachable', `Could not reach the model endpoint ${where}: ${endpointText(error, settings)}`, { cause: error, retryable: true });
  }
  if (error instanceof APIError) {
    const status = error.status;
    const text = endpointText(error, settings);
    const data = status === undefined ? {} : { httpStatus: status };
    if (status === 401 || status === 403) {
      return new ChatError('chat_model_auth_failed', `The model endpoint ${where} refused the credentials (HTTP ${status}): ${text}. Check RECALL_CHAT_API_KEY / OPENAI_API_KEY.`, { cause: error, data });
    }
    if (status === 404) {
      return new ChatError(
        'chat_model_not_found',
        `The model endpoint ${where} answered 404: ${text}. Check the model name (${settings.model ?? 'unset'}) and that the base URL ends where /chat/completions lives (usually …/v1).`,
        { cause: error, data },
      );
    }
    if (status === 429) return new ChatError('chat_model_rate_limited', `The model endpoint ${where} is rate limiting (HTTP 429): ${text}`, { cause: error, data, retryable: true });
    const retryable = status === undefined || status >= 500;
    return new ChatError('chat_model_error', `The model endpoint ${where} answered with an error${status === undefined ? '' : ` (HTTP ${status})`}: ${text}`, { cause: error, data, retryable });
  }
  if (error instanceof SyntaxError || error instanceof OpenAIError) {
    return new ChatError('chat_model_bad_response', `The model endpoint ${where} sent a response that is not valid chat-completions data: ${endpointText(error, settings)}`, {
      cause: error,
      retryable: true,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  return new ChatError('chat_failed', `The chat turn failed: ${redactSecret(message, settings).slice(0, MAX_ENDPOINT_TEXT)}`, {
    cause: error,
    data: typeof code === 'string' ? { cause: code } : {},
    retryable: typeof code === 'string' && code.startsWith('SQLITE_BUSY'),
  });
}
