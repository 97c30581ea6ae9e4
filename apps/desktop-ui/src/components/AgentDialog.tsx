/**
 * "Use with an agent": the exact `recall mcp` set-up for a conversation or a project, ready to copy
 * — the command line and the `mcpServers` JSON most MCP clients read. Each form says what the agent
 * will be able to search: `--session ID` (the agent runs as this conversation; the scope is its
 * stored project, re-read on every call), `--project SLUG` (the whole project) and `--cwd DIR`
 * (the project whose folder covers DIR). Recall serves the tool over stdio on this machine.
 */
import { useEffect, useId, useRef, useState } from 'react';
import { orderedFolders } from '../lib/grouping';
import type { Project } from '../types';

export interface AgentTarget {
  /** The conversation (head session id and title), when opened from one. */
  conversation?: { sessionId: string; title: string };
  /** The project, when the conversation has one or the dialog was opened from a project. */
  project: Project | null;
}

export interface McpForm {
  key: string;
  label: string;
  explain: string;
  args: string[];
}

/** The `recall mcp` forms that fit the target, most specific first. */
export function mcpForms(target: AgentTarget, profile: string | null): McpForm[] {
  const common = profile && profile !== 'default' ? ['--profile', profile] : [];
  const forms: McpForm[] = [];
  if (target.conversation) {
    forms.push({
      key: 'session',
      label: 'As this conversation',
      explain: target.project
        ? `The agent searches as “${target.conversation.title}”: the history of its project ${target.project.name}, read again on every call, so it follows a move.`
        : `The agent searches as “${target.conversation.title}”. It has no project, so only its own earlier history is searched.`,
      args: ['mcp', '--session', target.conversation.sessionId, ...common],
    });
  }
  if (target.project) {
    forms.push({
      key: 'project',
      label: 'The whole project',
      explain: `For an agent without a Recall conversation: it searches every conversation of ${target.project.name}.`,
      args: ['mcp', '--project', target.project.slug || target.project.id, ...common],
    });
    const folder = orderedFolders(target.project)[0];
    if (folder) {
      forms.push({
        key: 'cwd',
        label: 'By folder',
        explain: `The project whose folder covers the directory — here ${target.project.name}, through ${folder}. Handy in an agent config that lives in that folder.`,
        args: ['mcp', '--cwd', folder, ...common],
      });
    }
  }
  return forms;
}

/** Quotes an argument for a POSIX shell only when it needs it. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function mcpJson(args: string[]): string {
  return JSON.stringify({ mcpServers: { recall: { command: 'recall', args } } }, null, 2);
}

function CopyBlock({ label, text }: { label: string; text: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
    setTimeout(() => setState('idle'), 2000);
  };
  return (
    <div className="code-block">
      <button type="button" className="copy-code" onClick={() => void copy()} aria-label={`Copy ${label}`}>
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}
      </button>
      <pre aria-label={label}>
        <code>{text}</code>
      </pre>
    </div>
  );
}

export function AgentDialog({ target, profile, onClose }: { target: AgentTarget; profile: string | null; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  const forms = mcpForms(target, profile);
  const [choice, setChoice] = useState(forms[0]?.key ?? '');
  const form = forms.find((f) => f.key === choice) ?? forms[0];

  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);

  const name = target.conversation ? `“${target.conversation.title}”` : `“${target.project?.name ?? ''}”`;
  return (
    <dialog
      ref={ref}
      className="dialog agent-dialog"
      aria-labelledby={`${id}-title`}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <h2 id={`${id}-title`}>Use {name} with an agent</h2>
      <p className="dialog-desc">
        Any agent that speaks MCP (Claude Code, Cursor, Codex, …) can search this history with the <code>session_search</code> tool.
        Recall runs it on this machine as a local command; the agent never chooses its own scope.
      </p>
      {forms.length > 1 && (
        <fieldset className="agent-forms">
          <legend>What the agent may search</legend>
          {forms.map((f) => (
            <label key={f.key} className={`mode${choice === f.key ? ' on' : ''}`}>
              <input type="radio" name={`${id}-form`} value={f.key} checked={choice === f.key} onChange={() => setChoice(f.key)} />
              {f.label}
            </label>
          ))}
        </fieldset>
      )}
      {form && (
        <div data-testid="agent-config">
          <p className="field-hint">{form.explain}</p>
          <h3 className="agent-h">Command</h3>
          <CopyBlock label="command" text={['recall', ...form.args].map(shellQuote).join(' ')} />
          <h3 className="agent-h">MCP client configuration (JSON)</h3>
          <CopyBlock label="configuration" text={mcpJson(form.args)} />
          <p className="field-hint">
            <code>recall</code> is the Recall command line: on your PATH after installing it, or <code>pnpm recall</code> from
            the repository.
          </p>
          <p className="field-hint">
            Claude Code: <code>{['claude', 'mcp', 'add', 'recall', '--', 'recall', ...form.args].map(shellQuote).join(' ')}</code>
          </p>
        </div>
      )}
      <div className="dialog-actions">
        <button type="button" className="btn primary" onClick={onClose} autoFocus>
          Done
        </button>
      </div>
    </dialog>
  );
}
