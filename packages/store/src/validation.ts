/**
 * Input validation shared by the store's write functions: zod schemas for names, paths, ids and
 * message bodies, and `parseInput()` which turns zod failures into the store's typed
 * ValidationError (code `invalid_input`) before anything is written.
 */
import { z } from 'zod';
import { MAX_MESSAGE_CHARS, MESSAGE_ROLES } from '@recall/rpc-contract';
import { ValidationError } from './errors.js';

/** Rejects C0 control characters except tab/newline, which have no place in names. */
const noControl = (s: string) => !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(s);

export const projectNameSchema = z
  .string()
  .transform((s) => s.trim())
  .pipe(z.string().min(1, 'name must not be empty').max(120, 'name must be at most 120 characters'))
  .refine(noControl, 'name must not contain control characters');

export const idSchema = z.string().min(1).max(200).refine(noControl, 'id must not contain control characters');

export const folderPathSchema = z
  .string()
  .min(1, 'path must not be empty')
  .max(4096)
  .refine(noControl, 'path must not contain control characters');

export const titleSchema = z.string().max(500).refine(noControl, 'title must not contain control characters');

export const newMessageSchema = z.object({
  role: z.enum(MESSAGE_ROLES),
  content: z.string().max(MAX_MESSAGE_CHARS, `content must be at most ${MAX_MESSAGE_CHARS} characters`),
  toolName: z.string().max(200).nullish(),
  toolCalls: z.string().max(MAX_MESSAGE_CHARS).nullish(),
  toolCallId: z.string().max(200).nullish(),
  externalId: z.string().min(1).max(500).nullish(),
  createdAt: z.number().int().nonnegative().optional(),
  /**
   * Imported history only: the visibility its source recorded (compacted away, rewound). New
   * messages of a live conversation are always `live`; `deleted` is never imported.
   */
  visibility: z.enum(['live', 'compacted', 'rewound']).optional(),
});
/**
 * A message to append (`appendMessage` / `appendMessages`): `role` and `content` (at most
 * MAX_MESSAGE_CHARS UTF-16 code units) are required. `externalId` makes the append idempotent per
 * session; `createdAt` defaults to now (ms since the epoch); `visibility` is for imported history only.
 */
export type NewMessage = z.input<typeof newMessageSchema>;

export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    throw new ValidationError(`Invalid ${what}: ${where}${issue?.message ?? 'invalid value'}`, { issues: result.error.issues });
  }
  return result.data;
}
