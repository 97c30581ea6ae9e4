/**
 * Input validation shared by the store's write functions: zod schemas for names, paths, ids and
 * message bodies, and `parseInput()` which turns zod failures into the store's typed
 * ValidationError (code `invalid_input`) before anything is written. Every text field goes through
 * `text()`: a lone surrogate becomes one U+FFFD (the one rule for text that is not well-formed
 * UTF-16), so what a write returns is what a read returns.
 */
import { z } from 'zod';
import { MAX_MESSAGE_CHARS, MESSAGE_ROLES } from '@recall/rpc-contract';
import { ValidationError } from './errors.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `s` as well-formed UTF-16: each lone (unpaired) surrogate replaced with one U+FFFD, so the length
 * is unchanged. SQLite would store a lone surrogate's WTF-8 bytes, which read back as three U+FFFD.
 */
export function toWellFormed(s: string): string {
  return s.replace(LONE_SURROGATE, '\uFFFD');
}

/** A stored string: at most `max` UTF-16 code units, lone surrogates replaced (see toWellFormed). */
export const text = (max: number, message?: string) => z.string().max(max, message).transform(toWellFormed);

/** Rejects C0 control characters except tab/newline, which have no place in names. */
const noControl = (s: string) => !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(s);

export const projectNameSchema = z
  .string()
  .transform((s) => toWellFormed(s).trim())
  .pipe(z.string().min(1, 'name must not be empty').max(120, 'name must be at most 120 characters'))
  .refine(noControl, 'name must not contain control characters');

export const idSchema = z.string().min(1).max(200).refine(noControl, 'id must not contain control characters');

export const folderPathSchema = text(4096)
  .pipe(z.string().min(1, 'path must not be empty'))
  .refine(noControl, 'path must not contain control characters');

export const titleSchema = text(500).refine(noControl, 'title must not contain control characters');

export const newMessageSchema = z.object({
  role: z.enum(MESSAGE_ROLES),
  content: text(MAX_MESSAGE_CHARS, `content must be at most ${MAX_MESSAGE_CHARS} characters`),
  toolName: text(200).nullish(),
  toolCalls: text(MAX_MESSAGE_CHARS).nullish(),
  toolCallId: text(200).nullish(),
  externalId: z.string().min(1).max(500).transform(toWellFormed).nullish(),
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
