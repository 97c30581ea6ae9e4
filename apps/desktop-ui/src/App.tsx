/**
 * Composition root of the UI: wires the state hooks (projects, open conversation, search, index,
 * events, notices) to the layout — sidebar | conversation | side panel (search / index) — and owns
 * the transient UI state (open menu, open dialog, narrow-screen pane and sidebar drawer). All
 * project changes go through the hooks; this file only decides what to show and when.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { AgentDialog, type AgentTarget } from './components/AgentDialog';
import { ConversationView } from './components/ConversationView';
import { IndexPanel } from './components/IndexPanel';
import { Menu } from './components/Menu';
import { MoveMenu } from './components/MoveMenu';
import { Notices } from './components/Notices';
import { SEARCH_BOX_ID, SearchPanel } from './components/SearchPanel';
import { SidePanel } from './components/SidePanel';
import { Sidebar } from './components/Sidebar';
import { TextDialog } from './components/TextDialog';
import { DeleteDialog, ExportDialog, type DataTarget } from './components/DataDialogs';
import { TopBar, type PaneName } from './components/TopBar';
import { Welcome } from './components/Welcome';
import { baseName, shortPath, titleFromText } from './lib/format';
import { folderProblem } from './lib/folders';
import { semanticDotLabel, semanticUnavailableFor } from './lib/semantic';
import { displayTitle, orderedFolders, projectName, type Conversation } from './lib/grouping';
import { continuationOf, useChat } from './state/chat';
import { useConversation, useSaveDraft, type Draft } from './state/conversation';
import { describeImport, importDemo } from './state/demo';
import { useEventStream } from './state/events';
import { useIndexStatus } from './state/indexStatus';
import { useNotices } from './state/notices';
import { useProjects, type MoveTarget } from './state/projects';
import { useHomeConfirm } from './state/homeConfirm';
import { useHashRoute } from './state/route';
import { useRpc } from './state/rpcContext';
import { useSearch, useSearchScope } from './state/search';
import type { GatewayInfo, Project, Session } from '@recall/rpc-contract';
import type { Route } from './lib/links';

type MenuState =
  | { kind: 'move'; conversation: Conversation; x: number; y: number; opener: HTMLElement | null }
  | { kind: 'project'; project: Project; x: number; y: number; opener: HTMLElement | null };

type DialogState =
  | { kind: 'createProject'; folder?: string }
  | { kind: 'renameProject'; project: Project }
  | { kind: 'addFolder'; project: Project }
  | { kind: 'cwd'; conversation: Conversation }
  | { kind: 'agent'; target: AgentTarget }
  | { kind: 'renameConversation'; conversation: Conversation; opener: HTMLElement | null }
  | { kind: 'export'; target: DataTarget; opener: HTMLElement | null }
  | { kind: 'delete'; target: DataTarget; opener: HTMLElement | null };

const NARROW = '(max-width: 860px)';

function soloConversation(s: Session): Conversation {
  return {
    key: s.id,
    root: s,
    head: s,
    members: [s],
    projectId: s.projectId,
    title: displayTitle(s),
    lastActivity: s.updatedAt,
  };
}

function useMediaQuery(q: string): boolean {
  const [match, setMatch] = useState(() => globalThis.matchMedia?.(q).matches ?? false);
  useEffect(() => {
    const mq = matchMedia(q);
    const on = () => setMatch(mq.matches);
    mq.addEventListener('change', on);
    return () => mq.removeEventListener('change', on);
  }, [q]);
  return match;
}

export function App() {
  const { rpc } = useRpc();
  const api = useProjects();
  const { route, navigate, replace } = useHashRoute();
  const { notices, notify, fail, dismiss, dismissAll } = useNotices();
  const narrow = useMediaQuery(NARROW);
  const [sidebarOpen, setSidebarOpen] = useState(false);
  const [pane, setPane] = useState<PaneName>('conversation');
  const [menu, setMenu] = useState<MenuState | null>(null);
  const [dialog, setDialog] = useState<DialogState | null>(null);
  // Where the focus goes once a dialog has closed: set by the closing code, run after the <dialog> left the page.
  const focusAfterDialog = useRef<(() => void) | null>(null);
  useEffect(() => {
    if (dialog !== null || !focusAfterDialog.current) return;
    const focus = focusAfterDialog.current;
    focusAfterDialog.current = null;
    focus();
  }, [dialog]);
  const [busyFolder, setBusyFolder] = useState<string | null>(null);
  const { withHomeConfirm, dialog: homeDialog } = useHomeConfirm();

  const [demo, setDemo] = useState<{ loading: boolean; status: string | null }>({ loading: false, status: null });

  const openSessionId = route.view === 'session' ? route.sessionId : null;
  // Where the user was before a draft: "Discard draft" goes back there.
  const beforeDraft = useRef<Route | null>(null);
  useEffect(() => {
    if (route.view !== 'new') beforeDraft.current = route.view === 'session' ? { view: 'session', sessionId: route.sessionId } : route;
  }, [route]);
  const draft: Draft | null = route.view === 'new' ? { projectId: route.projectId, ...(route.cwd ? { cwd: route.cwd } : {}) } : null;
  const conv = useConversation(openSessionId, route.view === 'session' ? route.messageId : undefined);
  const searchable = conv.session && conv.session.id === openSessionId ? conv.session : null;
  // A whole-project search (from a project's header) holds until another conversation opens.
  const { scope: searchScope, searchProject, setSearchProject, keepProjectScope } = useSearchScope(openSessionId, searchable, draft?.projectId ?? null);
  const search = useSearch(searchScope);
  const ready = api.load === 'ready';
  const index = useIndexStatus(ready);
  const live = useEventStream(ready);
  const saveDraft = useSaveDraft();
  const chat = useChat(ready);
  const [compressing, setCompressing] = useState<string | null>(null);
  const [searchFocusRequest, setSearchFocusRequest] = useState(0);
  const [info, setInfo] = useState<GatewayInfo | null>(null);
  useEffect(() => {
    void rpc
      .call('gateway.info', {})
      .then(setInfo)
      .catch(() => undefined);
  }, [rpc]);
  const projectById = (id: string | null) => (id ? (api.projects.find((p) => p.id === id) ?? null) : null);
  const agentFor = (c: Conversation): AgentTarget => ({ conversation: { sessionId: c.head.id, title: c.title }, project: projectById(c.projectId) });

  const conversations = api.conversations;
  const logicalOfOpen = useMemo(
    () => (openSessionId ? (conversations.find((c) => c.members.some((m) => m.id === openSessionId)) ?? null) : null),
    [conversations, openSessionId],
  );
  const openConversation = logicalOfOpen ?? (conv.session ? soloConversation(conv.session) : null);
  const empty = ready && api.projects.length === 0 && [...api.groups.values()].every((g) => g.total === 0);

  // A conversation opened by link is listed (and scrolled into view) even when no loaded page has it.
  const { ensureListed } = api;
  useEffect(() => {
    if (ready && openSessionId) void ensureListed(openSessionId);
  }, [ready, openSessionId, ensureListed]);

  useEffect(() => {
    document.title = conv.session ? `${displayTitle(conv.session)} — Recall` : 'Recall';
  }, [conv.session]);

  // Narrow screens: the sidebar is a drawer; Escape closes it.
  useEffect(() => {
    if (!narrow || !sidebarOpen) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !menu && !dialog) setSidebarOpen(false);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [narrow, sidebarOpen, menu, dialog]);

  const go = useCallback(
    (r: Parameters<typeof navigate>[0]) => {
      navigate(r);
      setPane('conversation');
      if (narrow) setSidebarOpen(false);
    },
    [navigate, narrow],
  );

  // "Skip to search", Ctrl/Cmd+K anywhere and "/" outside text fields: show the search pane and focus its box.
  const focusSearch = useCallback(() => {
    setPane('search');
    if (narrow) setSidebarOpen(false);
    setSearchFocusRequest((n) => n + 1);
  }, [narrow]);

  useEffect(() => {
    if (searchFocusRequest === 0) return;
    const box = document.getElementById(SEARCH_BOX_ID);
    if (box instanceof HTMLInputElement) {
      box.focus();
      box.select();
    } else document.querySelector<HTMLElement>('section.search[aria-label="Search"]')?.focus();
  }, [searchFocusRequest]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || menu || dialog) return;
      const target = e.target instanceof Element ? e.target : null;
      const typing = !!target?.closest('input, textarea, select, [contenteditable]:not([contenteditable="false"])');
      const chord = (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'k';
      const slash = e.key === '/' && !e.ctrlKey && !e.metaKey && !e.altKey && !typing;
      if (!chord && !slash) return;
      e.preventDefault();
      focusSearch();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [menu, dialog, focusSearch]);

  /** A chat refused because the session was compressed elsewhere: open the continuation. */
  const openContinuation = (err: unknown): boolean => {
    const next = continuationOf(err);
    if (!next) return false;
    notify('info', 'This part of the conversation was compressed; opened the latest part.');
    go({ view: 'session', sessionId: next });
    return true;
  };

  const chatSend = async (sessionId: string, text: string) => {
    try {
      await chat.send(sessionId, text);
    } catch (err) {
      if (openContinuation(err)) throw new Error('Not sent: this part was compressed. The latest part is open now; send it there.');
      throw err;
    }
  };

  const compressConversation = async (sessionId: string) => {
    setCompressing(sessionId);
    try {
      const next = await chat.compress(sessionId);
      notify('success', 'Compressed: the conversation continues in a new part; the earlier part stays searchable');
      go({ view: 'session', sessionId: next.id });
    } catch (err) {
      if (!openContinuation(err)) fail('Could not compress', err);
    } finally {
      setCompressing(null);
    }
  };

  /** A draft's first message to the model: store the draft in its project, then chat.send. */
  const draftChat = async (text: string) => {
    if (!draft) return;
    const s = await rpc.call('session.create', {
      projectId: draft.projectId,
      title: titleFromText(text),
      source: 'desktop',
      ...(draft.cwd ? { cwd: draft.cwd } : {}),
      ...(chat.status?.model ? { model: chat.status.model } : {}),
    });
    replace({ view: 'session', sessionId: s.id });
    void api.refreshGroups([s.projectId]).catch(() => undefined);
    try {
      await chat.send(s.id, text);
    } catch (err) {
      // The refusal stored nothing: keep what the user wrote as a plain message.
      await rpc.call('session.append', { sessionId: s.id, role: 'user', content: text }).catch(() => undefined);
      fail('Saved your message, but the model was not asked', err);
    }
  };

  const doMove = useCallback(
    async (c: Conversation, target: MoveTarget, isUndo = false) => {
      const out = await api.moveConversation(c.key, c.head.id, c.projectId, target);
      const moved = out.ok && out.projectId !== undefined && out.projectId !== c.projectId;
      // A move that changed something can be undone: the same conversation goes back where it was.
      const undo =
        moved && !isUndo
          ? {
              label: 'Undo',
              run: () =>
                void doMove(
                  { ...c, projectId: out.projectId ?? null },
                  c.projectId === null ? { kind: 'none' } : { kind: 'project', projectId: c.projectId },
                  true,
                ),
            }
          : undefined;
      notify(out.ok ? 'success' : 'error', `“${c.title}”: ${out.text}`, undo);
      if (out.ok && openSessionId && c.members.some((m) => m.id === openSessionId)) await conv.reload();
    },
    [api, notify, openSessionId, conv],
  );

  const findConversation = (key: string) => conversations.find((c) => c.key === key) ?? null;

  const startInFolder = async (path: string) => {
    setBusyFolder(path);
    try {
      const p = await withHomeConfirm(path, (confirmHome) => api.projectForFolder(path, confirmHome));
      if (!p) return;
      notify('success', `Folder ${path} is now the project “${p.name}”`);
      go({ view: 'new', projectId: p.id, cwd: path });
    } catch (err) {
      fail(`Could not make ${path} a project`, err);
    } finally {
      setBusyFolder(null);
    }
  };

  const makeProjectFromFolder = async (path: string) => {
    setBusyFolder(path);
    try {
      const p = await withHomeConfirm(path, (confirmHome) => api.projectForFolder(path, confirmHome));
      if (p) notify('success', `Folder ${path} is now the project “${p.name}”`);
    } catch (err) {
      fail(`Could not make ${path} a project`, err);
    } finally {
      setBusyFolder(null);
    }
  };

  const newConversation = (projectId: string | null) => {
    const p = projectId ? api.projects.find((x) => x.id === projectId) : undefined;
    const cwd = p ? orderedFolders(p)[0] : undefined;
    go(cwd ? { view: 'new', projectId, cwd } : { view: 'new', projectId });
  };

  const loadDemo = async () => {
    setDemo({ loading: true, status: 'Importing the demo history…' });
    try {
      const r = await importDemo(rpc);
      setDemo({ loading: false, status: describeImport(r) });
      notify(r.errors.length ? 'error' : 'success', describeImport(r));
      await api.reloadAll();
    } catch (err) {
      setDemo({ loading: false, status: null });
      fail('Demo import failed', err);
    }
  };

  const projectTarget = (p: Project): DataTarget => ({ kind: 'project', project: p, conversations: Math.max(api.groups.get(p.id)?.total ?? 0, p.sessionCount ?? 0) });

  /** Closes a rename/export/delete dialog and gives the focus back to what opened its menu (WAI-ARIA dialog pattern). */
  const closeDataDialog = (opener: HTMLElement | null) => {
    focusAfterDialog.current = () => {
      if (opener?.isConnected) opener.focus();
    };
    setDialog(null);
  };

  /** After a real delete: leave a conversation that no longer exists, refresh, and put the focus somewhere that still exists. */
  const afterDelete = (target: DataTarget, text: string) => {
    notify('success', text);
    const gone = target.kind === 'conversation' ? target.conversation.members.map((m) => m.id) : null;
    if (openSessionId && (gone ? gone.includes(openSessionId) : conv.session?.projectId === (target.kind === 'project' ? target.project.id : undefined))) go({ view: 'home' });
    void (target.kind === 'project' ? api.reloadAll() : api.refreshGroups([target.conversation.projectId])).catch(() => undefined);
    const projectId = target.kind === 'conversation' ? target.conversation.projectId : null;
    // The deleted row (the menu's opener) is gone: its project's header takes the focus.
    focusAfterDialog.current = () => {
      const group = document.querySelector<HTMLElement>(projectId ? `[data-project-id="${CSS.escape(projectId)}"] .group-toggle` : '.sidebar .group-toggle');
      (group ?? document.querySelector<HTMLElement>('.sidebar button'))?.focus();
    };
    setDialog(null);
  };

  const setArchived = async (p: Project, archived: boolean) => {
    try {
      await api.archiveProject(p.id, archived);
      notify('success', archived ? `Archived “${p.name}”; its conversations keep their project` : `Unarchived “${p.name}”`);
    } catch (err) {
      fail(archived ? `Could not archive “${p.name}”` : `Could not unarchive “${p.name}”`, err);
    }
  };

  const openMoveMenu = (c: Conversation, x: number, y: number, opener: HTMLElement | null) =>
    setMenu({ kind: 'move', conversation: c, x, y, opener });

  /** Same-named projects are allowed (ids decide), but people should know before making one. */
  const duplicateName = (name: string | undefined, except?: string): string | null => {
    const n = name?.trim().toLocaleLowerCase();
    const same = n ? api.projects.filter((p) => p.id !== except && p.name.trim().toLocaleLowerCase() === n) : [];
    if (same.length === 0) return null;
    const where = same.map((p) => (orderedFolders(p)[0] ? `folder ${shortPath(orderedFolders(p)[0]!, 2)}` : 'no folder')).join(', ');
    return `A project named “${same[0]!.name}” already exists (${where}${same.some((p) => p.archived) ? ', archived' : ''}). You can still use the name; menus tell them apart by folder.`;
  };

  const rightPane = pane === 'index' ? 'index' : 'search';
  // "New chat" starts where the user is: the open conversation's (or draft's) project, if active.
  const currentProjectId = draft ? draft.projectId : route.view === 'session' ? (conv.session?.projectId ?? null) : null;
  const currentProject = api.projects.find((p) => p.id === currentProjectId && !p.archived) ?? null;
  const projectLabel = searchScope ? projectName(api.projects, searchScope.projectId) : '';
  const searchProjectNow = (projectId: string) => {
    setSearchProject(projectId);
    focusSearch();
  };

  return (
    <div className={`app${narrow ? ' narrow' : ''}${sidebarOpen ? ' sidebar-open' : ''}`} data-pane={pane}>
      <a
        className="skip-link"
        href={`#${SEARCH_BOX_ID}`}
        onClick={(e) => {
          e.preventDefault();
          focusSearch();
        }}
      >
        Skip to search
      </a>
      <TopBar live={live} sidebarOpen={sidebarOpen} onToggleSidebar={() => setSidebarOpen((v) => !v)} pane={pane} onPane={setPane} />
      <Notices notices={notices} onDismiss={dismiss} onDismissAll={dismissAll} />
      <aside id="sidebar" className="sidebar" aria-hidden={narrow && !sidebarOpen ? true : undefined} inert={narrow && !sidebarOpen}>
        <Sidebar
          api={api}
          conversations={conversations}
          activeSessionId={openSessionId}
          busyFolder={busyFolder}
          onOpen={(c) => go({ view: 'session', sessionId: c.head.id })}
          onMenu={openMoveMenu}
          onNew={newConversation}
          onStartInFolder={(p) => void startInFolder(p)}
          onMakeProjectFromFolder={(p) => void makeProjectFromFolder(p)}
          onCreateProject={() => setDialog({ kind: 'createProject' })}
          onProjectMenu={(project, x, y, opener) => setMenu({ kind: 'project', project, x, y, opener })}
          onSearchProject={searchProjectNow}
          onUnarchive={(p) => void setArchived(p, false)}
          currentProject={currentProject}
          onLoadMore={(projectId) => void api.loadMore(projectId).catch((err) => fail('Could not load more conversations', err))}
          onDropOnProject={(key, projectId) => {
            const c = findConversation(key);
            if (c) void doMove(c, projectId === null ? { kind: 'none' } : { kind: 'project', projectId });
          }}
          onDropOnFolder={(key, path) => {
            const c = findConversation(key);
            if (c) void doMove(c, { kind: 'folder', path });
          }}
        />
      </aside>
      {narrow && sidebarOpen && <div className="scrim" onClick={() => setSidebarOpen(false)} aria-hidden="true" />}

      <main className="main" id="main" tabIndex={-1}>
        {route.view === 'home' && (
          <Welcome
            empty={empty}
            loadingDemo={demo.loading}
            demoStatus={demo.status}
            onLoadDemo={() => void loadDemo()}
            onCreateProject={() => setDialog({ kind: 'createProject' })}
            onNewConversation={() => newConversation(null)}
          />
        )}
        {(route.view === 'session' || draft) && (
          <ConversationView
            route={route.view === 'session' ? route : null}
            draft={draft}
            conv={conv}
            projects={api.projects}
            logical={logicalOfOpen}
            moving={openConversation ? api.moving.has(openConversation.key) : false}
            onMoveMenu={(opener) => {
              if (!openConversation) return;
              const r = opener.getBoundingClientRect();
              openMoveMenu(openConversation, r.left, r.bottom + 4, opener);
            }}
            onChangeCwd={() => openConversation && setDialog({ kind: 'cwd', conversation: openConversation })}
            onAgent={() => openConversation && setDialog({ kind: 'agent', target: agentFor(openConversation) })}
            onSaveDraft={async (text) => {
              if (!draft) return;
              const s = await saveDraft(draft, text);
              replace({ view: 'session', sessionId: s.id });
              notify('success', `Saved in ${projectName(api.projects, s.projectId)}`);
              void api.refreshGroups([s.projectId]).catch(() => undefined);
            }}
            onDiscardDraft={() => go(beforeDraft.current ?? { view: 'home' })}
            chat={chat}
            compressing={compressing !== null && compressing === openSessionId}
            onCompress={compressConversation}
            onChatSend={chatSend}
            onDraftChat={draftChat}
          />
        )}
      </main>

      <SidePanel
        selected={rightPane}
        onSelect={setPane}
        indexDot={index.status ? { state: String(index.status.semantic.status), label: semanticDotLabel(index.status.semantic) } : null}
      >
        {rightPane === 'search' ? (
          <SearchPanel
            search={search}
            session={searchable}
            projectLabel={projectLabel}
            isDraft={!!draft}
            projects={api.projects.filter((p) => !p.archived)}
            onSearchProject={searchProjectNow}
            onSearchAsConversation={searchProject && searchable ? () => setSearchProject(null) : null}
            semanticUnavailable={searchScope ? semanticUnavailableFor(index.status, searchScope.projectId) : null}
            onOpenHit={(hash) => {
              const pid = searchScope?.projectId ?? null;
              keepProjectScope.current = pid;
              if (pid) setSearchProject(pid);
              go(hash);
            }}
          />
        ) : (
          <IndexPanel index={index} onNotice={(kind, text) => notify(kind, text)} />
        )}
      </SidePanel>

      {menu?.kind === 'move' && (
        <MoveMenu
          conversation={menu.conversation}
          projects={api.projects}
          discovered={api.discovered}
          x={menu.x}
          y={menu.y}
          returnFocus={menu.opener}
          onClose={() => setMenu(null)}
          onMove={(t) => void doMove(menu.conversation, t)}
          {...(openSessionId && menu.conversation.members.some((m) => m.id === openSessionId)
            ? {}
            : { onOpen: () => go({ view: 'session', sessionId: menu.conversation.head.id }) })}
          onChangeCwd={() => setDialog({ kind: 'cwd', conversation: menu.conversation })}
          onAgent={() => setDialog({ kind: 'agent', target: agentFor(menu.conversation) })}
          onRename={() => setDialog({ kind: 'renameConversation', conversation: menu.conversation, opener: menu.opener })}
          onExport={() => setDialog({ kind: 'export', target: { kind: 'conversation', conversation: menu.conversation }, opener: menu.opener })}
          onDelete={() => setDialog({ kind: 'delete', target: { kind: 'conversation', conversation: menu.conversation }, opener: menu.opener })}
        />
      )}
      {menu?.kind === 'project' && (
        <Menu
          label={`Actions for project ${menu.project.name}`}
          heading={menu.project.name}
          x={menu.x}
          y={menu.y}
          returnFocus={menu.opener}
          onClose={() => setMenu(null)}
          sections={[
            {
              items: [
                { key: 'new', label: 'New conversation here', onSelect: () => newConversation(menu.project.id) },
                { key: 'rename', label: 'Rename…', onSelect: () => setDialog({ kind: 'renameProject', project: menu.project }) },
                { key: 'folder', label: 'Add folder…', hint: 'metadata only', onSelect: () => setDialog({ kind: 'addFolder', project: menu.project }) },
                { key: 'agent', label: 'Use with an agent…', hint: 'MCP set-up', onSelect: () => setDialog({ kind: 'agent', target: { project: menu.project } }) },
                { key: 'archive', label: 'Archive', hint: 'keeps conversations', onSelect: () => void setArchived(menu.project, true) },
              ],
            },
            {
              items: [
                { key: 'export', label: 'Export…', hint: 'JSONL or Markdown', onSelect: () => setDialog({ kind: 'export', target: projectTarget(menu.project), opener: menu.opener }) },
                { key: 'delete', label: 'Delete…', danger: true, onSelect: () => setDialog({ kind: 'delete', target: projectTarget(menu.project), opener: menu.opener }) },
              ],
            },
          ]}
        />
      )}

      {homeDialog}
      {dialog?.kind === 'renameConversation' && (
        <TextDialog
          title="Rename conversation"
          description="The new title is shown in the sidebar and in search results; the conversation stays where it is."
          // Not name "title": TextDialog's input ids share a prefix with its heading's id ("…-title").
          fields={[{ name: 'conversationTitle', label: 'Title', required: true, initial: dialog.conversation.title === 'Untitled conversation' ? '' : dialog.conversation.title }]}
          submitLabel="Rename"
          onClose={() => closeDataDialog(dialog.opener)}
          onSubmit={async (v) => {
            await rpc.call('session.title', { sessionId: dialog.conversation.root.id, title: v.conversationTitle ?? '' });
            notify('success', `Renamed to “${v.conversationTitle}”`);
            void api.refreshGroups([dialog.conversation.projectId]).catch(() => undefined);
            if (openSessionId && dialog.conversation.members.some((m) => m.id === openSessionId)) await conv.reload();
          }}
        />
      )}
      {dialog?.kind === 'export' && <ExportDialog target={dialog.target} onClose={() => closeDataDialog(dialog.opener)} onDone={(text) => notify('success', text)} />}
      {dialog?.kind === 'delete' && (
        <DeleteDialog
          target={dialog.target}
          onClose={() => closeDataDialog(dialog.opener)}
          onDeleted={(text) => afterDelete(dialog.target, text)}
        />
      )}
      {dialog?.kind === 'agent' && <AgentDialog target={dialog.target} info={info} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'createProject' && (
        <TextDialog
          title="New project"
          description="A project is an explicit home for conversations. Folders are only metadata (the default directory for new conversations)."
          fields={[
            { name: 'name', label: 'Name', required: true, placeholder: 'e.g. grepline', initial: dialog.folder ? baseName(dialog.folder) : '' },
            { name: 'folder', label: 'Folder (optional)', placeholder: '/home/you/src/project', initial: dialog.folder ?? '' },
          ]}
          submitLabel="Create project"
          warning={(v) => duplicateName(v.name)}
          onClose={() => setDialog(null)}
          onSubmit={async (v) => {
            const problem = folderProblem(v.folder);
            if (problem) throw new Error(problem);
            const folder = v.folder || undefined;
            const p = folder
              ? await withHomeConfirm(folder, (confirmHome) => api.createProject(v.name ?? '', folder, confirmHome))
              : await api.createProject(v.name ?? '');
            if (!p) throw new Error('Not created: choose a folder inside your home folder, or leave the folder empty.');
            notify('success', `Created project “${p.name}”`);
          }}
        />
      )}
      {dialog?.kind === 'renameProject' && (
        <TextDialog
          title="Rename project"
          description="Renaming never changes which conversations belong to it."
          fields={[{ name: 'name', label: 'Name', required: true, initial: dialog.project.name }]}
          submitLabel="Rename"
          warning={(v) => duplicateName(v.name, dialog.project.id)}
          onClose={() => setDialog(null)}
          onSubmit={async (v) => {
            const p = await api.renameProject(dialog.project.id, v.name ?? '');
            notify('success', `Renamed to “${p.name}”`);
          }}
        />
      )}
      {dialog?.kind === 'addFolder' && (
        <TextDialog
          title={`Add a folder to “${dialog.project.name}”`}
          description="Folders are metadata: the default directory of new conversations and a hint for suggestions. They never move conversations."
          fields={[{ name: 'path', label: 'Folder path', required: true, placeholder: '/home/you/src/project' }]}
          submitLabel="Add folder"
          onClose={() => setDialog(null)}
          onSubmit={async (v) => {
            const path = v.path ?? '';
            const problem = folderProblem(path);
            if (problem) throw new Error(problem);
            const p = await withHomeConfirm(path, (confirmHome) => api.addFolder(dialog.project.id, path, confirmHome));
            if (!p) throw new Error('Not added: choose a folder inside your home folder.');
            notify('success', `Added ${v.path} to “${dialog.project.name}”`);
          }}
        />
      )}
      {dialog?.kind === 'cwd' && (
        <TextDialog
          title="Change working directory"
          description={
            <>
              This only changes the directory of “{dialog.conversation.title}”. Its project stays{' '}
              <strong>{projectName(api.projects, dialog.conversation.projectId)}</strong>
              {dialog.conversation.head.cwd ? ` (current directory ${shortPath(dialog.conversation.head.cwd, 3)})` : ''}. To change the project, use “Move…”.
            </>
          }
          fields={[{ name: 'cwd', label: 'Directory', required: true, initial: dialog.conversation.head.cwd ?? '' }]}
          submitLabel="Change directory"
          onClose={() => setDialog(null)}
          onSubmit={async (v) => {
            const sessionId = dialog.conversation.head.id;
            const s =
              openSessionId === sessionId ? await conv.setCwd(v.cwd ?? '') : await rpc.call('session.cwd.set', { sessionId, cwd: v.cwd ?? '' });
            notify('success', `Directory set to ${s.cwd ?? v.cwd}; project unchanged (${projectName(api.projects, s.projectId)})`);
            void api.refreshGroups([s.projectId]).catch(() => undefined);
          }}
        />
      )}
    </div>
  );
}
