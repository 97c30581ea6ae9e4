/**
 * Search panel. Runs `search.session_search` *as* the open conversation (its stored project is the
 * scope; a conversation without a project only recalls its own history). Query box, mode switch
 * (hybrid / keyword / semantic), results grouped by conversation with highlighted snippets, and
 * the tool's used_mode, semantic_status and notes shown as they are. A result opens its anchor;
 * under it, its surrounding messages (the tool's `window`, anchor ± 1 until expanded; the anchor's
 * text is not repeated) and the conversation's other matching messages, each openable. The count
 * line counts every distinct matching message once (lib/results matchCounts).
 */
import { useId, useState } from 'react';
import { coverageProgress } from '../lib/coverage';
import { formatDate, isoOf } from '../lib/format';
import { anchorHash, formatHash } from '../lib/links';
import { countText, hitKey, matchCounts, matchInfo, visibleWindow } from '../lib/results';
import { groupHits } from '../lib/snippet';
import type { SearchApi } from '../state/search';
import type { SearchHit, SearchMode, SearchResult, Session } from '@recall/rpc-contract';
import type { RpcClient } from '../rpc';
import { useRpc } from '../state/rpcContext';
import { errorForPeople, notesForPeople } from '../lib/toolText';
import { InlineText, Snippet } from './Snippet';

export interface SearchPanelProps {
  search: SearchApi;
  /** The open conversation (when the scope is it, or to offer searching as it). */
  session: Session | null;
  /** The project name of the scope (the conversation's project, or the searched project). */
  projectLabel: string;
  isDraft: boolean;
  /** Projects a whole-project search can be started in (active ones). */
  projects: ReadonlyArray<{ id: string; name: string }>;
  onSearchProject: (projectId: string) => void;
  /** Back from a whole-project search to searching as the open conversation. */
  onSearchAsConversation: (() => void) | null;
  /** Why semantic search cannot run in this scope now (the option is disabled), or null. */
  semanticUnavailable: string | null;
  onOpenHit: (hash: string) => void;
}

const MODES: Array<{ value: SearchMode; label: string; hint: string }> = [
  { value: 'hybrid', label: 'Hybrid', hint: 'keyword + meaning' },
  { value: 'keyword', label: 'Keyword', hint: 'exact words, symbols' },
  { value: 'semantic', label: 'Semantic', hint: 'similar meaning' },
];

/** The search box's element id: the skip link and the keyboard shortcuts focus it. */
export const SEARCH_BOX_ID = 'search-box';

/** What each match_source badge means, for its tooltip. */
const SOURCE_TITLE: Record<string, string> = {
  keyword: 'found by its words',
  semantic: 'found by meaning (semantic index)',
  both: 'found by its words and by meaning',
};

/** The tool's coverage of this project's semantic index, as it reported it; "unknown" stays unknown. */
export function coverageLabel(c: SearchResult['semantic_coverage']): string | null {
  if (c === 'unknown') return 'coverage unknown';
  const p = coverageProgress(c);
  if (!p) return null;
  return `${p.done.toLocaleString()} of ${p.total.toLocaleString()} indexed`;
}

export function hitHash(h: SearchHit): string {
  return anchorHash(h);
}

function statusText(s: unknown): string {
  if (typeof s === 'string') return s;
  if (s && typeof s === 'object' && 'status' in s) return String((s as { status: unknown }).status);
  return 'unknown';
}

export function SearchPanel({
  search,
  session,
  projectLabel,
  isDraft,
  projects,
  onSearchProject,
  onSearchAsConversation,
  semanticUnavailable,
  onOpenHit,
}: SearchPanelProps) {
  const id = useId();
  const scope = search.scope;
  if (!scope) {
    return (
      <section className="panel-body search" aria-label="Search" tabIndex={-1}>
        <h2 className="panel-title">Search history</h2>
        <div className="explain">
          <p>
            Search looks through the conversations of <strong>one project</strong>, and nothing outside it.
          </p>
          <p>
            {isDraft
              ? 'This draft is not saved yet and has no project. Search a whole project:'
              : projects.length > 0
                ? 'Open a conversation to search its project, or search a whole project:'
                : 'Create a project or load the demo data to search.'}
          </p>
          {projects.length > 0 && (
            <ul className="scope-picks" aria-label="Search a project">
              {projects.map((p) => (
                <li key={p.id}>
                  <button type="button" className="btn small" data-testid="search-project" onClick={() => onSearchProject(p.id)}>
                    Search {p.name}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      </section>
    );
  }

  const r = search.result;
  const groups = groupHits(r?.results ?? []);
  const counts = matchCounts(r?.results ?? []);
  const semantic = statusText(r?.semantic_status);
  return (
    <section className="panel-body search" aria-label="Search" tabIndex={-1}>
      <h2 className="panel-title">Search history</h2>
      <form
        role="search"
        className="search-form"
        onSubmit={(e) => {
          e.preventDefault();
          void search.run();
        }}
      >
        {scope.kind === 'project' ? (
          <label htmlFor={SEARCH_BOX_ID} className="search-scope">
            Searching the whole project <strong data-testid="search-scope">{projectLabel}</strong>
          </label>
        ) : (
          <label htmlFor={SEARCH_BOX_ID} className="search-scope">
            Searching as <strong>{session?.title?.trim() || 'this conversation'}</strong> in{' '}
            <strong data-testid="search-scope">{projectLabel}</strong>
          </label>
        )}
        {scope.kind === 'session' && scope.projectId !== null && (
          <button type="button" className="link-btn scope-switch" onClick={() => onSearchProject(scope.projectId!)}>
            Search the whole project instead
          </button>
        )}
        {scope.kind === 'project' && onSearchAsConversation && (
          <button type="button" className="link-btn scope-switch" onClick={onSearchAsConversation}>
            Search as the open conversation instead
          </button>
        )}
        {scope.kind === 'session' && scope.projectId === null && (
          <p className="group-note">No project: only this conversation’s own earlier history is searched.</p>
        )}
        <div className="search-row">
          <input
            id={SEARCH_BOX_ID}
            type="search"
            aria-keyshortcuts="Control+K /"
            value={search.query}
            onChange={(e) => search.setQuery(e.target.value)}
            onKeyDown={(e) => {
              // Escape empties the box and the results (also where the browser does not clear it).
              if (e.key === 'Escape' && search.query !== '') {
                e.preventDefault();
                search.clear();
              }
            }}
            aria-label="Search words"
            placeholder="e.g. build error, 番茄炒蛋"
            autoComplete="off"
            spellCheck={false}
          />
          <button type="submit" className="btn primary" disabled={!search.query.trim() || search.status === 'searching'}>
            Search
          </button>
        </div>
        <fieldset className="modes">
          <legend className="sr-only">Search mode</legend>
          {MODES.map((m) => {
            const off = m.value === 'semantic' && semanticUnavailable !== null;
            return (
              <label key={m.value} className={`mode${search.mode === m.value ? ' on' : ''}${off ? ' off' : ''}`} title={off ? semanticUnavailable! : m.hint}>
                <input
                  type="radio"
                  name={`${id}-mode`}
                  value={m.value}
                  checked={search.mode === m.value}
                  disabled={off}
                  aria-describedby={off ? `${id}-sem-off` : undefined}
                  onChange={() => search.setMode(m.value)}
                />
                {m.label}
              </label>
            );
          })}
        </fieldset>
        {semanticUnavailable !== null && (
          <p className="field-hint" id={`${id}-sem-off`} data-testid="semantic-off">
            Semantic search is off here: {semanticUnavailable}
          </p>
        )}
      </form>

      <div className="search-status" role="status" aria-live="polite">
        {search.status === 'searching' && <span className="status-text">Searching…</span>}
        {search.status === 'error' && <span className="status-error">Search failed: {search.error}</span>}
        {search.status === 'done' && r && (
          <span>
            {groups.length === 0 ? 'No matches' : countText(counts, r.results?.length ?? 0)} for “
            {search.answeredQuery}”
          </span>
        )}
      </div>

      {search.status === 'done' && r && (
        <div className="search-meta" data-testid="search-meta">
          <span className="pill" title="mode the tool actually used">
            used: <strong data-testid="used-mode">{String(r.used_mode ?? '?')}</strong>
            {r.requested_mode && r.requested_mode !== r.used_mode ? ` (asked ${String(r.requested_mode)})` : ''}
          </span>
          <span className={`pill sem-${semantic}`} title="semantic index state of this project">
            semantic: <strong data-testid="semantic-status">{semantic}</strong>
            {coverageLabel(r.semantic_coverage) && <span data-testid="semantic-coverage"> · {coverageLabel(r.semantic_coverage)}</span>}
          </span>
          {r.scope && (
            <span className="pill" title="scope the tool resolved from this conversation's stored project">
              scope: <strong>{r.scope.kind === 'own_conversation' ? 'this conversation only' : 'project'}</strong>
            </span>
          )}
          {r.truncated && <span className="pill">truncated</span>}
          {r.error && (
            <p className="status-error" role="alert">
              {errorForPeople(r.error)}
            </p>
          )}
          {notesForPeople(r.notes ?? []).length > 0 && (
            <ul className="notes" aria-label="Notes">
              {notesForPeople(r.notes ?? []).map((n, i) => (
                <li key={i}>{n}</li>
              ))}
            </ul>
          )}
        </div>
      )}

      {groups.length > 0 && (
        <ol className="hit-groups" aria-label="Results by conversation">
          {groups.map((g) => (
            <li key={g.sessionId} className="hit-group">
              <div className="hit-group-head">
                <span className="hit-title">{g.title}</span>
                {g.date !== null && g.date !== undefined && (
                  <time className="hit-date" dateTime={isoOf(g.date)}>
                    {formatDate(g.date)}
                  </time>
                )}
                {g.sessionId === session?.id && <span className="tag">this conversation</span>}
              </div>
              <ul className="hits">
                {g.hits.map((h) => {
                  const match = matchInfo(h);
                  return (
                    <li key={`${h.session_id}:${h.message_id}`}>
                      <button
                        type="button"
                        className="hit"
                        data-session-id={h.session_id}
                        data-message-id={h.message_id}
                        onClick={() => onOpenHit(hitHash(h))}
                      >
                        <span className="hit-head">
                          <span className={`role-tag role-${String(h.role ?? '')}`}>{String(h.role ?? 'message')}</span>
                          {match.source && (
                            <span className={`match-src src-${match.source}`} data-testid="match-source" title={SOURCE_TITLE[match.source] ?? match.source}>
                              {match.source}
                            </span>
                          )}
                          {match.field === 'title' && (
                            <span className="match-field" data-testid="match-field" title="the conversation title matched">
                              title match
                            </span>
                          )}
                        </span>
                        <Snippet text={String(h.snippet ?? '')} query={search.answeredQuery} />
                      </button>
                      <HitWindow hit={h} />
                      <MoreMatches sessionId={h.session_id} ids={counts.extras.get(hitKey(h)) ?? []} onOpen={onOpenHit} />
                    </li>
                  );
                })}
              </ul>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/**
 * Which session of a logical conversation holds a message: the tool reports extra matches per
 * conversation as bare ids, and a compressed conversation spreads them over its parts.
 */
async function sessionHolding(rpc: RpcClient, sessionId: string, messageId: number): Promise<string> {
  const conv = await rpc.call('conversations.get', { sessionId });
  const members = [sessionId, ...conv.sessions.map((s) => s.id).filter((id) => id !== sessionId)];
  for (const id of members) {
    const page = await rpc.call('session.page', { sessionId: id, aroundMessageId: messageId, limit: 1 });
    if (page.anchorVisible) return id;
  }
  return sessionId;
}

/** The conversation's other matching messages, each openable (the tool reports only their ids). */
function MoreMatches({ sessionId, ids, onOpen }: { sessionId: string; ids: number[]; onOpen: (hash: string) => void }) {
  const { rpc } = useRpc();
  if (ids.length === 0) return null;
  const open = async (id: number) => {
    const holder = await sessionHolding(rpc, sessionId, id).catch(() => sessionId);
    onOpen(formatHash({ view: 'session', sessionId: holder, messageId: id }));
  };
  return (
    <div className="hit-more" data-testid="more-matches">
      <span>
        {ids.length} more matching {ids.length === 1 ? 'message' : 'messages'} here:
      </span>
      {ids.map((id, i) => (
        <button key={id} type="button" className="link-btn" data-message-id={id} aria-label={`Open matching message ${i + 1} of ${ids.length}`} onClick={() => void open(id)}>
          {i + 1}
        </button>
      ))}
    </div>
  );
}

/** The result's surrounding messages (the tool's `window`), the anchor marked; anchor ± 1 until expanded. */
function HitWindow({ hit }: { hit: SearchHit }) {
  const [expanded, setExpanded] = useState(false);
  const collapsed = visibleWindow(hit.window, hit.message_id, false);
  const w = expanded ? visibleWindow(hit.window, hit.message_id, true) : collapsed;
  if (w.shown.length === 0) return null;
  const hidden = collapsed.hiddenBefore + collapsed.hiddenAfter;
  const canToggle = hidden > 0;
  return (
    <div className={`hit-window${expanded ? ' expanded' : ''}`} data-testid="hit-window">
      <ol className="win" aria-label={`Context of message ${hit.message_id}`}>
        {w.shown.map((m, i) => {
          const anchor = i === w.anchorIndex;
          return (
            <li key={m.message_id} className={`win-msg role-${String(m.role)}${anchor ? ' is-anchor' : ''}`} data-message-id={m.message_id}>
              <span className="win-role">
                {String(m.role)}
                {anchor && <span className="sr-only"> (the matching message)</span>}
              </span>
              {/* The anchor's text is the result's snippet just above: marked here, not repeated. */}
              <span className="win-text">{anchor ? <span className="win-anchor-mark">↑ the match</span> : <InlineText text={String(m.text ?? '')} />}</span>
            </li>
          );
        })}
      </ol>
      {canToggle && (
        <button type="button" className="link-btn win-toggle" aria-expanded={expanded} onClick={() => setExpanded((v) => !v)}>
          {expanded ? 'Less context' : `${hidden} more around it`}
        </button>
      )}
    </div>
  );
}
