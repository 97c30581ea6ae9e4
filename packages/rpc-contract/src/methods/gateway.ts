/** Introspection params: `gateway.info` (profile, version, how to start `recall mcp`) and `rpc.discover`. */
import { z } from 'zod';
import { methodGroup } from '../method-spec.js';

export const GATEWAY_METHODS = methodGroup({
  'gateway.info': { summary: 'Which profile this gateway serves and its version.', params: z.strictObject({}) },
  'rpc.discover': { summary: 'Every method with its summary and the JSON Schema of its params.', params: z.strictObject({}) },
});
