/**
 * Composition root of the UI: wires the state hooks (projects, open conversation, search, index,
 * events, notices, layout) to the layout — sidebar | conversation | side panel (search / index) —
 * with the menus (AppMenus) and dialogs (AppDialogs) on top. All project changes go through the
 * hooks; this file only decides what to show and when.
 */
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import type { AgentTarget } from './components/AgentDialog';
import { AppDialogs, useDialogs } from './components/AppDialogs';
import { AppMenus, type MenuState } from './components/AppMenus';
import { ConversationView } from './components/ConversationView';
import type { DataTarget } from './components/DataDialogs';
import { IndexPanel } from './components/IndexPanel';
import { Notices } from './components/Notices';
import { SEARCH_BOX_ID, SearchPanel } from './components/SearchPanel';
import { SidePanel } from './components/SidePanel';
import { Sidebar } from './components/Sidebar';
import { TopBar } from './components/TopBar';
import { Welcome } from './components/Welcome';
import { semanticDotLabel, semanticUnavailableFor } from './lib/semantic';
import { displayTitle, orderedFolders, projectName, type Conversation } from './lib/grouping';
import { useChat } from './state/chat';
import { useChatActions } from './state/chatActions';
import { useConversation, useSaveDraft, type Draft } from './state/conversation';
import { describeImport, importDemo } from './state/demo';
import { homeStatusReducer, initialHomeStatus } from './lib/homeStatus';
import { formatHash } from './lib/links';
import { useEventStream } from './state/events';
import { useIndexStatus } from './state/indexStatus';
import { useLayout } from './state/layout';
import { useNotices } from './state/notices';
import { useProjects, type MoveTarget } from './state/projects';
import { useHomeConfirm } from './state/homeConfirm';
import { useHashRoute } from './state/route';
import { useRpc } from './state/rpcContext';
import { useSearch, useSearchScope } from './state/search';
import type { GatewayInfo, Project, Session } from '@recall/rpc-contract';
import type { Route } from './lib/links';

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

export function App() {
  const { rpc } = useRpc();
  const api = useProjects();
  const { route, navigate, replace } = useHashRoute();
  const { notices, notify, fail, dismiss, dismissAll } = useNotices();
  const [menu, setMenu] = useState<MenuState | null>(null);
  const dialogs = useDialogs();
  const { dialog } = dialogs;
  const { narrow, sidebarOpen, setSidebarOpen, pane, setPane, go, focusSearch } = useLayout(navigate, !!menu || !!dialog);
  const [busyFolder, setBusyFolder] = useState<string | null>(null);
  const { withHomeConfirm, dialog: homeDialog } = useHomeConfirm();

  const [demoLoading, setDemoLoading] = useState(false);
  // The home screen's import status: clears on navigation, dismissable (lib/homeStatus.ts).
  const routeKey = formatHash(route);
  const [homeStatus, homeStatusDispatch] = useReducer(homeStatusReducer, routeKey, initialHomeStatus);
  useEffect(() => homeStatusDispatch({ type: 'navigate', routeKey }), [routeKey]);
  const homeNavigation = useRef(homeStatus.navigation);
  homeNavigation.current = homeStatus.navigation;

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
  const { compressing, chatSend, compressConversation, draftChat } = useChatActions({ chat, draft, go, replace, notify, fail, refreshGroups: api.refreshGroups });
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
    setDemoLoading(true);
    homeStatusDispatch({ type: 'show', text: 'Importing the demo history…' });
    const started = homeNavigation.current;
    try {
      const r = await importDemo(rpc);
      homeStatusDispatch({ type: 'finished', text: describeImport(r), navigation: started });
      notify(r.errors.length ? 'error' : 'success', describeImport(r));
      await api.reloadAll();
    } catch (err) {
      homeStatusDispatch({ type: 'finished', text: null, navigation: started });
      fail('Demo import failed', err);
    } finally {
      setDemoLoading(false);
    }
  };

  // Conversations as the sidebar counts them (a compressed conversation's parts are one); the
  // project's stored session count only when its group is not loaded (e.g. archived).
  const projectTarget = (p: Project): DataTarget => ({ kind: 'project', project: p, conversations: api.groups.get(p.id)?.total ?? p.sessionCount ?? 0 });

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
          onCreateProject={() => dialogs.open({ kind: 'createProject' })}
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
            loadingDemo={demoLoading}
            demoStatus={homeStatus.text}
            onDismissStatus={() => homeStatusDispatch({ type: 'dismiss' })}
            onLoadDemo={() => void loadDemo()}
            onCreateProject={() => dialogs.open({ kind: 'createProject' })}
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
            onChangeCwd={() => openConversation && dialogs.open({ kind: 'cwd', conversation: openConversation })}
            onAgent={() => openConversation && dialogs.open({ kind: 'agent', target: agentFor(openConversation) })}
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

      <AppMenus
        menu={menu}
        onClose={() => setMenu(null)}
        projects={api.projects}
        discovered={api.discovered}
        openSessionId={openSessionId}
        openDialog={dialogs.open}
        agentFor={agentFor}
        projectTarget={projectTarget}
        onMove={(c, t) => void doMove(c, t)}
        onOpen={(c) => go({ view: 'session', sessionId: c.head.id })}
        onNewConversation={newConversation}
        onArchive={(p) => void setArchived(p, true)}
      />

      {homeDialog}
      <AppDialogs dialogs={dialogs} api={api} conv={conv} openSessionId={openSessionId} info={info} notify={notify} go={go} withHomeConfirm={withHomeConfirm} onChanged={search.refresh} />
    </div>
  );
}
