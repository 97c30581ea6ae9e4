/**
 * A plain tool output of an imported history (a shell command's output, a file read, …): a
 * collapsible block, collapsed for stored messages, its summary naming the tool and its command;
 * open it shows the output in monospace, long output folded to its first lines until "Show all".
 * The error style is only for an output the tool itself reported as failed (lib/toolOutput).
 */
import { useState } from 'react';
import type { ToolCallInfo } from '../lib/chat';
import { commandOf, foldedPreview, toolOutputView } from '../lib/toolOutput';

export interface ToolOutputProps {
  name: string;
  content: string;
  call?: ToolCallInfo | undefined;
  toolCallId?: string | null;
}

export function ToolOutput({ name, content, call, toolCallId }: ToolOutputProps) {
  const view = toolOutputView(content);
  const fold = foldedPreview(view.text);
  const [all, setAll] = useState(false);
  const command = call ? commandOf(call.arguments) : null;
  const lines = view.text === '' ? 0 : view.text.split('\n').length;
  return (
    <details className={`tool-output${view.failed ? ' failed' : ''}`} data-testid="tool-output" data-failed={view.failed ? 'true' : 'false'} data-tool-call-id={toolCallId ?? undefined}>
      <summary>
        <span className="tool-name">{name}</span>
        {command && <code className="tool-cmd">{command}</code>}
        <span className="tool-facts">
          {view.failed ? (
            <span className="pill pill-error" data-testid="tool-failed">
              {view.exitCode !== null ? `failed (exit ${view.exitCode})` : 'failed'}
            </span>
          ) : (
            <span className="pill">{lines === 0 ? 'no output' : lines === 1 ? '1 line' : `${lines.toLocaleString()} lines`}</span>
          )}
        </span>
      </summary>
      {view.text !== '' && (
        <div className="tool-output-body">
          <pre>{fold && !all ? fold.preview : view.text}</pre>
          {fold && (
            <button type="button" className="btn small" aria-expanded={all} onClick={() => setAll((v) => !v)}>
              {all ? 'Fold' : `Show all ${fold.lines.toLocaleString()} lines`}
            </button>
          )}
        </div>
      )}
    </details>
  );
}
