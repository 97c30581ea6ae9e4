/**
 * The zod field schemas every params object is built from. Every field is described (the
 * descriptions feed `rpc.discover` and docs/rpc.md) and bounded, so the gateway's protocol layer
 * rejects oversized or malformed input with -32602 before any handler or store function runs. The
 * store re-validates domain rules (names, paths, lineage) and answers with its own stable codes.
 */
import { z } from 'zod';
import { MAX_MESSAGE_CHARS, MESSAGE_ROLES } from './vocabulary.js';

/** Ids are opaque strings; imported data keeps its own ids (e.g. "p_0", "s1"), so only the length is bounded here. */
export const projectIdField = z.string().min(1).max(200).describe('Project id (opaque, e.g. "p_…")');
export const sessionIdField = z.string().min(1).max(200).describe('Session id (opaque, e.g. "s_…")');
export const messageIdField = z.number().int().positive().max(Number.MAX_SAFE_INTEGER).describe('Message id (positive integer)');
export const pathField = z.string().min(1).max(4096).describe('Absolute folder path');
export const titleField = z.string().max(500).describe('Title (at most 500 characters)');
/** Message text is bounded by the HTTP body / WebSocket message limit (1 MiB by default) as well. */
export const contentField = z.string().max(MAX_MESSAGE_CHARS).describe('Message text (at most 1 MiB of UTF-16)');
export const roleField = z.enum(MESSAGE_ROLES).describe('Message role');
export const limitField = (max: number, def: number) => z.number().int().min(1).max(max).default(def).describe(`Maximum number of items (1-${max}, default ${def})`);
export const offsetField = z.number().int().min(0).max(1_000_000).default(0).describe('Number of items to skip (default 0)');
export const timestampField = z.number().int().min(0).max(8_640_000_000_000_000).describe('Milliseconds since the epoch');
export const shortText = (max: number, what: string) => z.string().max(max).describe(`${what} (at most ${max} characters)`);
