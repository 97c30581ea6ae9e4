import { ChatConfigError, chatToolDefinitions, publicChatSettings, resolveChatSettings } from '@recall/chat';
import type { SessionSearchExecutor } from '@recall/search-tool';

// Settings as a host reads them from its config: a local OpenAI-compatible server needs no key.
const settings = resolveChatSettings({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen2.5:7b' });
console.log(settings.configured, settings.maxToolRounds, settings.turnTimeoutMs);
const shown = publicChatSettings(settings); // what `chat.status` shows: never the key
console.log(shown.baseUrl, shown.apiKeySet);

// No model configured: not an error, the settings say what is missing.
console.log(resolveChatSettings({}).missing);

// Out-of-bounds settings throw ChatConfigError (the message names fields, never values).
try {
  resolveChatSettings({ model: 'm', baseUrl: 'http://127.0.0.1:11434/v1', maxToolRounds: 0 });
} catch (error) {
  if (error instanceof ChatConfigError) console.log(error.code);
}

// The tools offered to the model: none without a search executor, `session_search` with one.
// Any object with execute(args, context) fits, e.g. createSessionSearchTool() of @recall/search-tool.
const executor: SessionSearchExecutor = { execute: async () => ({ results: [] }) };
console.log(chatToolDefinitions(null).length);
for (const tool of chatToolDefinitions(executor)) console.log(tool.type, tool.type === 'function' ? tool.function.name : '');
