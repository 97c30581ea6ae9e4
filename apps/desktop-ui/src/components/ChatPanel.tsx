/**
 * Reserved place for the model chat panel (a later issue: an OpenAI-compatible model that can call
 * session_search as this conversation). For now it only says so, so the layout already has a slot.
 */
export function ChatPanel() {
  return (
    <aside className="chat-slot" aria-label="Model chat (coming later)">
      <strong>Model chat</strong> arrives in a later version: a model answering in this conversation and recalling
      its project's history with <code>session_search</code>. For now, messages you add are stored and searchable.
    </aside>
  );
}
