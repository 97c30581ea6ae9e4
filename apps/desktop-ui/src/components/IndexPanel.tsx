/**
 * Index panel: the keyword index (always on) and the semantic index from `index.status` — which
 * model it uses and where text goes, the worker's state with Run / Pause, and one row per project
 * with its consent switch, live coverage (ready of eligible chunks, pending, failed; "counting"
 * while the project is still being planned — never a made-up percentage), its last error and
 * Rebuild. Switching a project on opens a consent dialog that names the endpoint that will
 * receive the text and says that new messages of that project will be sent too (the built-in
 * model sends nothing anywhere, and the dialog says so). Progress follows `index.changed` events
 * and polling (state/indexStatus.ts), so a status line is always shown, never a bare spinner.
 */
import { useId, useState } from 'react';
import { ModalDialog } from './ModalDialog';
import { formatDate } from '../lib/format';
import { languageWarning, semanticBadge } from '../lib/semantic';
import { coverageProgress } from '../lib/coverage';
import { errorText } from '../rpc';
import type { IndexApi } from '../state/indexStatus';
import type { IndexProjectStatus, IndexProvider, IndexStatus } from '@recall/rpc-contract';

const STATUS_TEXT: Record<string, string> = {
  disabled: 'Disabled — no embedding provider is configured. Keyword search works fully.',
  ready: 'Ready — every eligible message of the switched-on projects is indexed.',
  partial: 'Filling — hybrid search uses what is ready; keyword search covers the rest.',
  unavailable: 'Unavailable — the embedding model cannot be reached; searches fall back to keywords and say so.',
  unknown: 'Unknown',
};

const WORKER_TEXT: Record<string, string> = {
  running: 'indexing now',
  idle: 'idle (nothing to do)',
  paused: 'paused',
  backoff: 'waiting to retry after an error',
  stopped: 'stopped',
};

/** The overall state in words; "disabled" says why (not configured, turned off, no project on). */
export function semanticStatusText(sem: Pick<IndexStatus['semantic'], 'status' | 'reason'>): string {
  if (sem.status === 'disabled' && sem.reason === 'turned_off') return 'Disabled — turned off in the configuration. Keyword search works fully.';
  if (sem.status === 'disabled' && sem.reason === 'no_project_enabled') return 'No project is switched on yet — switch one on below. Keyword search works fully.';
  return STATUS_TEXT[String(sem.status)] ?? String(sem.status);
}

/** Where the text goes, in words. */
export function providerText(p: Pick<IndexProvider, 'remote' | 'languages' | 'model' | 'endpoint'>): string {
  if (!p.remote) return `the built-in English model, on this computer — nothing is sent anywhere${p.languages === 'english-only' ? ' (English text only)' : ''}`;
  return `${p.model} at ${p.endpoint}`;
}

/** One project's state in words: what is indexed, what is left, why it is off. */
export function projectStateText(p: IndexProjectStatus): string {
  if (!p.consent.enabled) return 'Off — nothing of this project is sent.';
  if (p.reason === 'consent_for_other_endpoint') return `Off — it was switched on for ${p.consent.endpoint ?? 'another endpoint'}, not the model in use now. Switch it on again to send it there.`;
  if (p.status === 'disabled') return 'On, but semantic search is off for this gateway.';
  if (p.eligible === 'unknown') return `Counting what to index… ${p.ready.toLocaleString()} chunks ready so far.`;
  const left = p.pending + p.failed;
  if (p.status === 'unavailable') return `Waiting for the model — ${p.ready.toLocaleString()} of ${p.eligible.toLocaleString()} chunks ready.`;
  if (left === 0 && p.ready >= p.eligible) return `Ready — ${p.ready.toLocaleString()} of ${p.eligible.toLocaleString()} chunks.`;
  return `Indexing — ${p.ready.toLocaleString()} of ${p.eligible.toLocaleString()} chunks ready${p.pending ? `, ${p.pending.toLocaleString()} to go` : ''}${p.failed ? `, ${p.failed.toLocaleString()} failed (retried with backoff)` : ''}.`;
}

/**
 * Why reranking is not used for a switched-on project, or null when it is (or no reranker is
 * configured): its consent was given before the reranker was set up, or for another reranker.
 */
export function rerankConsentMissingText(p: IndexProjectStatus, provider: Pick<IndexProvider, 'reranker'> | null): string | null {
  const reranker = provider?.reranker;
  if (!reranker || !p.consent.enabled || p.reason === 'consent_for_other_endpoint') return null;
  const named = p.consent.rerankEndpoint ?? null;
  if (named === reranker.endpoint) return null;
  return named
    ? `Reranking is not used for this project: it was switched on for the reranker at ${named}, not the one at ${reranker.endpoint}. Switch it on again to allow the new one.`
    : `Reranking is not used for this project: it was switched on before the reranker at ${reranker.endpoint} was set up. Switch it on again to allow it.`;
}

function percent(ready: number, eligible: number): string {
  if (eligible <= 0) return '100%';
  return `${Math.floor((Math.min(ready, eligible) / eligible) * 1000) / 10}%`;
}

export function IndexPanel({ index, onNotice }: { index: IndexApi; onNotice: (kind: 'success' | 'error', text: string) => void }) {
  const s = index.status;
  const sem = s?.semantic;
  const [consentFor, setConsentFor] = useState<IndexProjectStatus | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const act = async (key: string, what: string, fn: () => Promise<unknown>) => {
    setBusy(key);
    try {
      await fn();
    } catch (err) {
      onNotice('error', `${what}: ${errorText(err)}`);
    } finally {
      setBusy(null);
    }
  };
  const configured = sem ? sem.configured ?? sem.status !== 'disabled' : false;
  const projects = sem?.projects ?? [];
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
              On — {s.keyword.messages.toLocaleString()} messages in {s.keyword.conversations.toLocaleString()} conversations.
            </p>
          </div>
          <div className="index-block">
            <h3>
              Semantic index <span className={`pill sem-${String(sem.status)}`} data-testid="index-semantic-status">{semanticBadge(sem)}</span>
            </h3>
            <p>{semanticStatusText(sem)}</p>
            {sem.provider && (
              <p data-testid="index-provider">
                Model: <strong>{providerText(sem.provider)}</strong>.
              </p>
            )}
            {!configured && <SemanticHowTo howTo={sem.howToConfigure} reason={sem.reason} />}
            {configured && sem.worker && <WorkerLine status={s} busy={busy} onRun={() => void act('run', 'Could not start indexing', () => index.run())} onPause={() => void act('pause', 'Could not pause', () => index.pause())} />}
            {configured && projects.length === 0 && <OverallCoverage status={s} indexing={index.indexing} />}
          </div>
          {configured && projects.length > 0 && (
            <div className="index-block">
              <h3>Projects</h3>
              <p className="muted small">Semantic search is switched on per project: only switched-on projects send their text to the model.</p>
              <ul className="index-projects" aria-label="Semantic index per project">
                {projects
                  .filter((p) => !p.archived || p.consent.enabled)
                  .map((p) => (
                    <ProjectRow
                      key={p.projectId}
                      p={p}
                      provider={sem.provider}
                      busy={busy === p.projectId}
                      onAskAgain={() => setConsentFor(p)}
                      onSwitch={(on) => {
                        if (on) setConsentFor(p);
                        else
                          void act(p.projectId, `Could not switch off ${p.name}`, async () => {
                            await index.disable(p.projectId);
                            onNotice('success', `Semantic search is off for “${p.name}”: nothing more of it is sent; its index is kept.`);
                          });
                      }}
                      onRebuild={() =>
                        void act(p.projectId, `Could not rebuild ${p.name}`, async () => {
                          const n = await index.rebuild(p.projectId);
                          onNotice('success', `Rebuilding “${p.name}”: ${n.toLocaleString()} derived chunks dropped; indexing again.`);
                        })
                      }
                    />
                  ))}
              </ul>
            </div>
          )}
          <p className="muted small">
            Checked {index.checkedAt ? formatDate(index.checkedAt) : '—'}
            {index.indexing ? ' · updating every 2 s while indexing' : ''}{' '}
            <button type="button" className="link-btn" onClick={() => void index.refresh()}>
              Refresh
            </button>
          </p>
        </>
      )}
      {consentFor && sem?.provider && (
        <ConsentDialog
          project={consentFor}
          provider={sem.provider}
          onCancel={() => setConsentFor(null)}
          onConfirm={async () => {
            // The endpoints the dialog named: the gateway records them, or refuses when they changed meanwhile.
            const consent = await index.enable(consentFor.projectId, { endpoint: sem.provider!.endpoint, rerankEndpoint: sem.provider!.reranker?.endpoint ?? null });
            onNotice('success', consent.notice);
            setConsentFor(null);
          }}
        />
      )}
    </section>
  );
}

/** The gateway's text with its `backticked` commands shown as code (the backticks themselves are not shown). */
function withCode(text: string) {
  return text.split('`').map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part));
}

function SemanticHowTo({ howTo, reason }: { howTo: string | undefined; reason: string | undefined }) {
  // One explanation: what it is here, and the steps with this gateway's real config path from the gateway.
  return (
    <div className="howto">
      <h4>How to turn it on</h4>
      <p>
        Semantic search finds messages by meaning, not only by their words. It needs an embedding model: the built-in English model
        (runs on this computer, sends nothing anywhere) or any OpenAI-compatible embeddings server such as Ollama, vLLM or OpenAI.
        {!howTo && (
          <>
            {' '}Add a <code>semantic</code> section to the Recall home’s <code>config.json</code> and restart <code>recall serve</code>; then
            switch it on here for each project you want.
          </>
        )}
      </p>
      {reason === 'turned_off' && <p className="muted">It is configured but turned off (<code>enabled: false</code>).</p>}
      {howTo && <p className="howto-text">{withCode(howTo)}</p>}
      <p className="muted">History is only ever sent to the model you configure, and only for projects you switch on.</p>
    </div>
  );
}

function WorkerLine({ status, busy, onRun, onPause }: { status: IndexStatus; busy: string | null; onRun: () => void; onPause: () => void }) {
  const w = status.semantic.worker!;
  return (
    <div className="worker-line" data-testid="index-worker">
      <p>
        Worker: <strong>{WORKER_TEXT[w.state] ?? w.state}</strong>
        {w.embedded > 0 && ` · ${w.embedded.toLocaleString()} chunks embedded since start`}
        {!w.providerAvailable && ' · the model is not reachable'}
      </p>
      {w.lastError && (
        <p className="status-error" role="alert">
          Last error ({formatDate(w.lastError.at)}): {w.lastError.message} ({w.lastError.code})
        </p>
      )}
      <div className="worker-actions">
        <button type="button" className="btn small" disabled={busy !== null || w.state === 'running'} onClick={onRun}>
          {w.state === 'paused' ? 'Resume' : 'Run now'}
        </button>
        <button type="button" className="btn small" disabled={busy !== null || w.state === 'paused' || w.state === 'stopped'} onClick={onPause}>
          Pause
        </button>
      </div>
    </div>
  );
}

function OverallCoverage({ status, indexing }: { status: IndexStatus; indexing: boolean }) {
  const progress = coverageProgress(status.semantic.coverage);
  if (!progress) return <p className="muted">Coverage: unknown.</p>;
  const pct = progress.ratio !== null ? Math.floor(progress.ratio * 1000) / 10 : null;
  return (
    <div className="coverage">
      <div className="coverage-label">
        <span>
          Coverage: {progress.done.toLocaleString()} / {progress.total.toLocaleString()} {progress.unit}
        </span>
        {pct !== null && <span>{pct}%</span>}
      </div>
      <progress max={progress.total || 1} value={progress.done} aria-label={`Semantic coverage ${progress.done} of ${progress.total} ${progress.unit}`} />
      <p className="muted">{indexing ? 'Indexing in the background…' : 'Not indexing right now.'}</p>
    </div>
  );
}

function ProjectRow({
  p,
  provider,
  busy,
  onSwitch,
  onAskAgain,
  onRebuild,
}: {
  p: IndexProjectStatus;
  provider: IndexProvider | null;
  busy: boolean;
  onSwitch: (on: boolean) => void;
  /** Opens the consent dialog again (a reranker the consent does not name). */
  onAskAgain: () => void;
  onRebuild: () => void;
}) {
  const on = p.consent.enabled && p.reason !== 'consent_for_other_endpoint';
  const langWarn = languageWarning(provider, p);
  const rerankMissing = rerankConsentMissingText(p, provider);
  const known = typeof p.eligible === 'number';
  return (
    <li className={`index-project${on ? ' on' : ''}`} data-project-id={p.projectId}>
      <div className="index-project-head">
        <span className="index-project-name">
          {p.name}
          {p.archived ? <span className="tag"> archived</span> : null}
        </span>
        <button
          type="button"
          role="switch"
          className={`switch${on ? ' on' : ''}`}
          aria-checked={on}
          aria-label={`Semantic search for ${p.name}`}
          disabled={busy}
          onClick={() => onSwitch(!on)}
        >
          <span className="switch-knob" aria-hidden="true" />
          <span className="switch-text">{on ? 'On' : 'Off'}</span>
        </button>
      </div>
      <p className="index-project-state" data-testid="index-project-state">
        <span className={`pill sem-${p.status}`}>{p.status === 'partial' ? 'filling' : p.status === 'disabled' && !on ? 'off' : p.status}</span>
        {on && langWarn && (
          <span className="pill pill-warn" title={langWarn} data-testid="index-language-warning">
            wrong language
          </span>
        )}{' '}
        {projectStateText(p)}
      </p>
      {on && langWarn && <p className="status-warn small">{langWarn}</p>}
      {rerankMissing && (
        <p className="status-warn small" data-testid="index-rerank-consent">
          {rerankMissing}{' '}
          <button type="button" className="link-btn" disabled={busy} onClick={onAskAgain}>
            Review and switch on again…
          </button>
        </p>
      )}
      {on && known && (
        <div className="coverage">
          <progress
            max={Math.max(1, p.eligible as number)}
            value={Math.min(p.ready, p.eligible as number)}
            aria-label={`Coverage of ${p.name}: ${p.ready} of ${p.eligible} chunks`}
          />
          <span className="coverage-pct" data-testid="index-project-percent">
            {percent(p.ready, p.eligible as number)}
          </span>
        </div>
      )}
      {p.lastError && (
        <p className="status-error" role="alert">
          {p.lastError}
        </p>
      )}
      {on && (
        <button type="button" className="link-btn" disabled={busy} onClick={onRebuild}>
          Rebuild this project’s index
        </button>
      )}
    </li>
  );
}

/** What the consent says about the reranker (`semantic.rerank`), which also receives text at search time; null without one. */
export function rerankerConsentText(p: Pick<IndexProvider, 'reranker'>): string | null {
  if (!p.reranker) return null;
  return `When you search by meaning, your question and the text of the best matches of this project are also sent to the reranker at ${p.reranker.endpoint}${p.reranker.model ? ` (model ${p.reranker.model})` : ''} to put the best first.`;
}

/** The consent: names the endpoint that will receive the text, and that new messages go there too. */
function ConsentDialog({
  project,
  provider,
  onCancel,
  onConfirm,
}: {
  project: IndexProjectStatus;
  provider: IndexProvider;
  onCancel: () => void;
  onConfirm: () => Promise<void>;
}) {
  const id = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  return (
    <ModalDialog className="dialog consent-dialog" titleId={`${id}-title`} onClose={onCancel}>
      <h2 id={`${id}-title`}>Switch on semantic search for “{project.name}”?</h2>
      <div className="dialog-desc" data-testid="consent-text">
        {provider.remote ? (
          <>
            <p>
              Recall will send the text of this project’s conversations to <strong data-testid="consent-endpoint">{provider.endpoint}</strong>{' '}
              (model {provider.model}) to compute embeddings — the messages there now, and <strong>every new message of this project</strong>{' '}
              while semantic search stays on.
            </p>
            <p>Text of other projects is not sent. Switching it off stops sending at once and deletes nothing.</p>
          </>
        ) : (
          <>
            <p>
              The built-in English model runs <strong>on this computer: nothing is sent anywhere to index it</strong>. It will index the
              messages of this project now and every new message while semantic search stays on.
            </p>
            <p>It understands English text only. Switching it off stops indexing and deletes nothing.</p>
          </>
        )}
        {provider.reranker && (
          <p data-testid="consent-reranker">
            When you search by meaning, your question and the text of the best matches of this project are also sent to the reranker at{' '}
            <strong data-testid="consent-rerank-endpoint">{provider.reranker.endpoint}</strong>
            {provider.reranker.model ? ` (model ${provider.reranker.model})` : ''} to put the best first.
          </p>
        )}
        {languageWarning(provider, project) && (
          <p className="status-warn" role="alert" data-testid="consent-language-warning">
            {languageWarning(provider, project)}
          </p>
        )}
      </div>
      {error && (
        <p className="dialog-error" role="alert">
          {error}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
        <button type="button" className="btn primary" onClick={() => void confirm()} disabled={busy} autoFocus>
          {busy ? 'Switching on…' : confirmLabel(provider)}
        </button>
      </div>
    </ModalDialog>
  );
}

/** The confirm button names every host that will receive text (the embedding server, the reranker). */
export function confirmLabel(provider: Pick<IndexProvider, 'remote' | 'endpoint' | 'reranker'>): string {
  const hosts = [...new Set([...(provider.remote ? [hostOf(provider.endpoint)] : []), ...(provider.reranker ? [hostOf(provider.reranker.endpoint)] : [])])];
  return hosts.length ? `Switch on and send to ${hosts.join(' and ')}` : 'Switch on';
}

function hostOf(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return endpoint;
  }
}
