/**
 * The search tool writes its notes and errors for the model that calls it ("retry with
 * search_mode …", "its live messages are already in your context", "raise limit"). The search
 * panel shows them to people: known model-directed sentences are rewritten in plain words or left
 * out, anything else is shown as written. No React, no I/O.
 */

/**
 * Notes the panel shows some other way (the mode pill "used keyword (asked hybrid)", the count line,
 * the "Semantic search is off here" line) or that only make sense to a model.
 */
const DROP: RegExp[] = [/^Hybrid search ran as keyword-only/i, /around_message_id/i, /next_offset/i, /^No matches in this project\.?$/i, /^No matches in this conversation/i];

const REWRITE: Array<[RegExp, string | ((m: RegExpMatchArray) => string)]> = [
  [
    /^Your current conversation also matches \(([^)]*)\).*$/i,
    (m) => `The open conversation also matches (${m[1]}); it is not listed, since it is the one you are in.`,
  ],
  [/^Only the (\d+) best-matching messages were considered.*$/i, (m) => `Only the ${m[1]} best matches were looked at; more conversations may match — use more specific words.`],
  [/^More than (\d+) conversations match.*$/i, (m) => `More than ${m[1]} conversations match; use more specific words to see others.`],
  [/^(\d+) lower-ranked result\(s\) were left out.*$/i, (m) => `${m[1]} weaker ${m[1] === '1' ? 'match was' : 'matches were'} left out; use more specific words to see them.`],
  [/^Semantic results are missing: (.*)$/i, (m) => `Only word matches are shown: ${plainReason(m[1] ?? '')}`],
  [/^Semantic search is unavailable: (.*)$/i, (m) => `Semantic search is not available here: ${plainReason(m[1] ?? '')}`],
  [/^The semantic index covers only part of this project yet.*$/i, 'The meaning index is still being built for this project; word matches cover all of it.'],
  [/^Hybrid search fell back to keyword-only.*$/i, 'Only word matches are shown: semantic search did not answer this time.'],
  [/^The query was empty.*$/i, 'No words given, so the most recent conversations are listed.'],
];

function plainReason(reason: string): string {
  const r = reason
    .trim()
    .replace(/\.$/, '')
    .replace(/\s*\([a-z_]+\)$/, '');
  return `${r.charAt(0).toLowerCase()}${r.slice(1)}.`;
}

/** The tool's notes as people read them (model-only ones left out). */
export function notesForPeople(notes: readonly string[]): string[] {
  const out: string[] = [];
  for (const n of notes) {
    if (DROP.some((d) => d.test(n))) continue;
    const rule = REWRITE.find(([re]) => re.test(n));
    if (!rule) out.push(n);
    else {
      const [re, to] = rule;
      out.push(typeof to === 'string' ? to : to(n.match(re)!));
    }
  }
  return [...new Set(out)];
}

/** One plain sentence for a tool-level error (no codes, no argument names). */
export function errorForPeople(e: { code: string; message: string }): string {
  switch (e.code) {
    case 'semantic_unavailable':
      return 'Semantic search is not available for this project yet. Hybrid or Keyword search finds the exact words.';
    case 'not_found':
      return 'That conversation is not in this project.';
    case 'invalid_arguments':
      return 'The search could not be run with these settings.';
    default:
      return e.message.replace(/\s*Retry with[^.]*\.?/i, '').trim() || 'The search failed.';
  }
}
