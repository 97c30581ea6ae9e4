/**
 * Index panel: keyword index size (always on) and the semantic index status from `index.status` —
 * coverage with a progress bar while it fills, "disabled" with the gateway's how-to-configure text
 * when no embedding provider is set, and the reason when it is unavailable. Unknown coverage is
 * said as such, never turned into a made-up percentage.
 */
import { formatDate } from '../lib/format';
import { coverageProgress } from '../lib/coverage';
import type { IndexApi } from '../state/indexStatus';

const STATUS_TEXT: Record<string, string> = {
  disabled: 'Disabled — no embedding provider is configured. Keyword search works fully.',
  ready: 'Ready — every eligible message is indexed.',
  partial: 'Partial — the index is still filling; hybrid search uses what is ready and keyword search covers the rest.',
  unavailable: 'Unavailable — the provider cannot be reached; searches fall back to keywords and say so.',
  unknown: 'Unknown',
};

export function IndexPanel({ index }: { index: IndexApi }) {
  const s = index.status;
  const sem = s?.semantic;
  const progress = coverageProgress(sem?.coverage);
  const pct = progress?.ratio !== null && progress?.ratio !== undefined ? Math.floor(progress.ratio * 1000) / 10 : null;
  return (
    <section className="panel-body index" aria-label="Index">
      <h2 className="panel-title">Index</h2>
      {index.loading && !s && <p className="status-text">Reading index status…</p>}
      {index.error && (
        <p className="status-error" role="alert">
          Index status unavailable: {index.error}
        </p>
      )}
      {s && sem && (
        <>
          <div className="index-block">
            <h3>Keyword index</h3>
            <p>
              On — {s.keyword.messages.toLocaleString()} messages in {s.keyword.sessions.toLocaleString()} conversations.
            </p>
          </div>
          <div className="index-block">
            <h3>
              Semantic index <span className={`pill sem-${String(sem.status)}`} data-testid="index-semantic-status">{String(sem.status)}</span>
            </h3>
            <p>{STATUS_TEXT[String(sem.status)] ?? String(sem.status)}</p>
            {sem.reason && <p className="muted">Reason: {sem.reason}</p>}
            {sem.status === 'disabled' && (
              <div className="howto">
                <h4>How to turn it on</h4>
                {sem.howToConfigure ? (
                  <pre className="howto-text">{sem.howToConfigure}</pre>
                ) : (
                  <p>
                    Configure an embedding provider for the gateway (an OpenAI-compatible endpoint such as Ollama, vLLM or
                    OpenAI, or a local ONNX model folder) and restart <code>recall serve</code>.
                  </p>
                )}
                <p className="muted">History is only sent to the provider you configure.</p>
              </div>
            )}
            {progress ? (
              <div className="coverage">
                <div className="coverage-label">
                  <span>
                    Coverage: {progress.done.toLocaleString()} / {progress.total.toLocaleString()} {progress.unit}
                  </span>
                  {pct !== null && <span>{pct}%</span>}
                </div>
                <progress
                  max={progress.total || 1}
                  value={progress.done}
                  aria-label={`Semantic coverage ${progress.done} of ${progress.total} ${progress.unit}`}
                />
                <p className="muted">
                  {index.indexing ? 'Indexing in the background…' : 'Not indexing right now.'}
                  {progress.pending !== null && ` ${progress.pending} pending.`}
                  {progress.failed ? ` ${progress.failed} failed (retried with backoff).` : ''}
                </p>
              </div>
            ) : (
              sem.status !== 'disabled' && <p className="muted">Coverage: unknown.</p>
            )}
          </div>
          <p className="muted small">
            Checked {index.checkedAt ? formatDate(index.checkedAt) : '—'}{' '}
            <button type="button" className="link-btn" onClick={() => void index.refresh()}>
              Refresh
            </button>
          </p>
        </>
      )}
    </section>
  );
}
