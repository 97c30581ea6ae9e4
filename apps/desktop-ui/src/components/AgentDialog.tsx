/**
 * "Use with an agent": the exact `recall mcp` set-up for a conversation or a project, ready to copy
 * — the command line and the `mcpServers` JSON most MCP clients read. Each form says what the agent
 * will be able to search: `--session ID` (the agent runs as this conversation; the scope is its
 * stored project, re-read on every call), `--project SLUG` (the whole project) and `--cwd DIR`
 * (the project whose folder covers DIR). Recall serves the tool over stdio on this machine.
 * Every command has its Copy button (the copied state belongs to one form: switching forms resets
 * it); commands break only between arguments; the body scrolls so "Done" always stays in view.
 */
import { Fragment, useId, useState } from 'react';
import { ModalDialog } from './ModalDialog';
import { orderedFolders } from '../lib/grouping';
import type { GatewayInfo, Project } from '@recall/rpc-contract';

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
  /** The command to run and its arguments, scope flag included. */
  command: string;
  args: string[];
}

/**
 * The `recall mcp` forms that fit the target, most specific first. With the gateway's
 * `mcpCommand` they are exact for this installation, home and profile; without it (an older
 * gateway) they fall back to a `recall` on the PATH.
 */
export function mcpForms(target: AgentTarget, info: Pick<GatewayInfo, 'profile' | 'mcpCommand'> | null): McpForm[] {
  const base = info?.mcpCommand ?? {
    command: 'recall',
    args: ['mcp', ...(info && info.profile !== 'default' ? ['--profile', info.profile] : [])],
  };
  const form = (key: string, label: string, explain: string, scope: string[]): McpForm => ({ key, label, explain, command: base.command, args: [...base.args, ...scope] });
  const forms: McpForm[] = [];
  if (target.conversation) {
    forms.push(
      form(
        'session',
        'As this conversation',
        target.project
          ? `The agent searches as “${target.conversation.title}”: the history of its project ${target.project.name}, read again on every call, so it follows a move.`
          : `The agent searches as “${target.conversation.title}”. It has no project, so only its own earlier history is searched.`,
        ['--session', target.conversation.sessionId],
      ),
    );
  }
  if (target.project) {
    forms.push(
      form(
        'project',
        'The whole project',
        `For an agent without a Recall conversation: it searches every conversation of ${target.project.name}.`,
        ['--project', target.project.slug || target.project.id],
      ),
    );
    const folder = orderedFolders(target.project)[0];
    if (folder) {
      forms.push(
        form(
          'cwd',
          'By folder',
          `The project whose folder covers the directory — here ${target.project.name}, through ${folder}. Handy in an agent config that lives in that folder.`,
          ['--cwd', folder],
        ),
      );
    }
  }
  return forms;
}

/** The agents guide of this version, readable in a browser. */
/** (The repository named by every package.json; see docs/releasing.md.) */
export const AGENTS_DOC_URL = 'https://github.com/recall-project/recall/blob/main/docs/agents.md';

/** Quotes an argument for a POSIX shell only when it needs it. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function mcpJson(form: Pick<McpForm, 'command' | 'args'>): string {
  return JSON.stringify({ mcpServers: { recall: { command: form.command, args: form.args } } }, null, 2);
}

/**
 * A command or configuration with a Copy button. A command comes as its arguments: each is kept on
 * one line (a long one scrolls), so lines break only between arguments, never inside a path or an
 * option such as `--session` at a hyphen. A configuration (JSON) keeps its lines as they are and
 * scrolls sideways when one is too long.
 */
function CopyBlock({ label, text, args }: { label: string; text: string; args?: string[] }) {
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
      <pre aria-label={label} className={args ? 'nowrap-tokens' : 'nowrap-tokens no-wrap'}>
        <code>
          {args
            ? args.map((a, i) => (
                <Fragment key={i}>
                  {i > 0 ? ' ' : ''}
                  <span className="arg">{a}</span>
                </Fragment>
              ))
            : text}
        </code>
      </pre>
    </div>
  );
}

const commandLine = (args: string[]) => args.map(shellQuote).join(' ');
const claudeArgs = (form: McpForm) => ['claude', 'mcp', 'add', 'recall', '--', form.command, ...form.args];

export function AgentDialog({ target, info, onClose }: { target: AgentTarget; info: GatewayInfo | null; onClose: () => void }) {
  const id = useId();
  const forms = mcpForms(target, info);
  const [choice, setChoice] = useState(forms[0]?.key ?? '');
  const form = forms.find((f) => f.key === choice) ?? forms[0];


  const name = target.conversation ? `“${target.conversation.title}”` : `“${target.project?.name ?? ''}”`;
  return (
    <ModalDialog className="dialog agent-dialog" titleId={`${id}-title`} onClose={onClose}>
      <h2 id={`${id}-title`}>Use {name} with an agent</h2>
      <div className="agent-body">
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
        <div data-testid="agent-config" key={form.key}>
          <p className="field-hint">{form.explain}</p>
          <h3 className="agent-h">Command</h3>
          <CopyBlock label="command" text={commandLine([form.command, ...form.args])} args={[form.command, ...form.args].map(shellQuote)} />
          <h3 className="agent-h">MCP client configuration (JSON)</h3>
          <CopyBlock label="configuration" text={mcpJson(form)} />
          <h3 className="agent-h">Claude Code</h3>
          <CopyBlock label="Claude Code command" text={commandLine(claudeArgs(form))} args={claudeArgs(form).map(shellQuote)} />
          {form.key === 'cwd' && (
            <p className="field-hint">
              To share the set-up in the repository (<code>.mcp.json</code>), use <code>--cwd .</code>: the agent starts Recall in the repository folder.
            </p>
          )}
          <p className="field-hint">
            More clients (Codex, Cursor, …) and how to check the set-up:{' '}
            <a href={AGENTS_DOC_URL} target="_blank" rel="noopener noreferrer">
              Using Recall from an agent (docs/agents.md)
            </a>
            .
          </p>
        </div>
      )}
      </div>
      <div className="dialog-actions">
        <button type="button" className="btn primary" onClick={onClose} autoFocus>
          Done
        </button>
      </div>
    </ModalDialog>
  );
}
