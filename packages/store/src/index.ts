/**
 * Public surface of @recall/store: projects, sessions, lineage, moves, messages, windows and the
 * project-scoped keyword search. Every function takes an open `RecallDatabase` from @recall/schema.
 */
// --- ownership & data (projects, sessions, lineage, moves, messages, windows) ---
// --- keyword search (fts, CJK, query parsing) ---
