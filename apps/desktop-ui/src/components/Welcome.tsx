/**
 * The home pane. On an empty first run it explains what Recall does and offers "Load demo data",
 * "New project" and "New conversation"; otherwise it points at the sidebar.
 */
export interface WelcomeProps {
  empty: boolean;
  loadingDemo: boolean;
  /** The import's status line (clears on navigation; lib/homeStatus.ts). */
  demoStatus: string | null;
  onDismissStatus: () => void;
  onLoadDemo: () => void;
  onCreateProject: () => void;
  onNewConversation: () => void;
}

export function Welcome({ empty, loadingDemo, demoStatus, onDismissStatus, onLoadDemo, onCreateProject, onNewConversation }: WelcomeProps) {
  return (
    <section className="welcome" aria-label="Welcome">
      <h1>{empty ? 'Welcome to Recall' : 'Pick a conversation'}</h1>
      {empty ? (
        <>
          <p className="lead">
            Recall keeps your AI-agent conversations in explicit <strong>projects</strong>. A conversation can recall the
            original text of earlier conversations of <strong>its own project only</strong> — by keyword, and by meaning
            once a semantic index is configured.
          </p>
          <ol className="steps">
            <li>Create a project (optionally with its folder), or start a conversation without one.</li>
            <li>Move conversations between projects from the sidebar: drag them, or use “Move…”. Moving never changes a conversation’s working directory.</li>
            <li>Open a conversation and search: results come only from that conversation’s project.</li>
          </ol>
          <p>Nothing here yet. Try the demo history (three small projects, English and 中文) to look around.</p>
        </>
      ) : (
        <p className="lead">Open a conversation from the sidebar, or start a new one. Search runs in one project: the open conversation’s, or a whole project from its header.</p>
      )}
      <div className="welcome-actions">
        {/* aria-disabled, not disabled: a disabled button drops the keyboard focus to <body>. */}
        <button
          type="button"
          className={`btn${empty ? ' primary' : ''}`}
          onClick={() => {
            if (!loadingDemo) onLoadDemo();
          }}
          aria-disabled={loadingDemo}
        >
          {loadingDemo ? 'Importing demo…' : 'Load demo data'}
        </button>
        <button type="button" className="btn" onClick={onCreateProject}>
          New project
        </button>
        <button type="button" className="btn" onClick={onNewConversation}>
          New conversation (no project)
        </button>
      </div>
      {demoStatus && (
        <p className="status-text home-status" role="status" data-testid="home-status">
          <span>{demoStatus}</span>
          {!loadingDemo && (
            <button type="button" className="icon-btn home-status-dismiss" aria-label="Dismiss this status" title="Dismiss" onClick={onDismissStatus}>
              ×
            </button>
          )}
        </p>
      )}
    </section>
  );
}
