import { describe, expect, test } from 'vitest';
import { sessionSearchArgsSchema } from '@recall/rpc-contract';
import { openAiToolDefinition, sessionSearchJsonSchema } from '../src/index.js';

describe('session_search arguments', () => {
  test('defaults are applied', () => {
    expect(sessionSearchArgsSchema.parse({})).toEqual({ search_mode: 'hybrid', limit: 8, sort: 'relevance', window: 2, conversation: false });
  });

  test.each([
    [{ limit: 0 }],
    [{ limit: 51 }],
    [{ limit: 2.5 }],
    [{ search_mode: 'vector' }],
    [{ query: 'x'.repeat(10_001) }],
    [{ around_message_id: -1 }],
    [{ window: 21 }],
    [{ offset: -1 }],
    [{ offset: 1.5 }],
    [{ conversation: 'yes' }],
    [{ role_filter: [] }],
    [{ role_filter: ['robot'] }],
    [{ project_id: 'p_other' }],
    [{ profile: 'other' }],
  ])('rejects %j', (args) => {
    expect(sessionSearchArgsSchema.safeParse(args).success).toBe(false);
  });

  test('JSON Schema describes every property and offers no project or profile argument', () => {
    const schema = sessionSearchJsonSchema() as { properties: Record<string, { description?: string }>; additionalProperties: boolean };
    expect(Object.keys(schema.properties).sort()).toEqual(['around_message_id', 'conversation', 'limit', 'offset', 'query', 'role_filter', 'search_mode', 'session_id', 'since', 'sort', 'until', 'window']);
    for (const [name, prop] of Object.entries(schema.properties)) expect(prop.description, name).toBeTruthy();
    expect(schema.additionalProperties).toBe(false);
    const def = openAiToolDefinition({ name: 'session_search', description: 'd', parameters: schema });
    expect(def).toMatchObject({ type: 'function', function: { name: 'session_search' } });
  });
});
