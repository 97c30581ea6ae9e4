/**
 * The page's dialogs host: which dialog is open (`useDialogs`, at most one at a time) and what each
 * one does — "New project", "Rename project", "Add folder", "Change working directory", "Rename
 * conversation", "Export…", "Delete…" and "Use with an agent". Closing a dialog opened from a menu
 * gives the focus back to the menu's opener; after a delete, whose opener may be gone, the focus
 * goes to the project's header in the sidebar (WAI-ARIA dialog pattern: never to <body>).
 */
import { useEffect, useRef, useState } from 'react';
import type { GatewayInfo, Project } from '@recall/rpc-contract';
import { AgentDialog, type AgentTarget } from './AgentDialog';
import { DeleteDialog, ExportDialog, type DataTarget } from './DataDialogs';
import { TextDialog } from './TextDialog';
import { baseName, shortPath } from '../lib/format';
import { folderProblem } from '../lib/folders';
import { orderedFolders, projectName, type Conversation } from '../lib/grouping';
import type { Route } from '../lib/links';
import type { ConversationApi } from '../state/conversation';
import type { HomeConfirm } from '../state/homeConfirm';
import type { NoticesApi } from '../state/notices';
import type { ProjectsApi } from '../state/projects';
import { useRpc } from '../state/rpcContext';

export type DialogState =
  | { kind: 'createProject'; folder?: string }
  | { kind: 'renameProject'; project: Project }
  | { kind: 'addFolder'; project: Project }
  | { kind: 'cwd'; conversation: Conversation }
  | { kind: 'agent'; target: AgentTarget }
  | { kind: 'renameConversation'; conversation: Conversation; opener: HTMLElement | null }
  | { kind: 'export'; target: DataTarget; opener: HTMLElement | null }
  | { kind: 'delete'; target: DataTarget; opener: HTMLElement | null };

export interface Dialogs {
  dialog: DialogState | null;
  open: (d: DialogState) => void;
  /** Closes the dialog; `thenFocus` runs once the <dialog> has left the page. */
  close: (thenFocus?: () => void) => void;
}

export function useDialogs(): Dialogs {
  const [dialog, setDialog] = useState<DialogState | null>(null);
  // Where the focus goes once a dialog has closed: set by the closing code, run after the <dialog> left the page.
  const focusAfterDialog = useRef<(() => void) | null>(null);
  useEffect(() => {
    if (dialog !== null || !focusAfterDialog.current) return;
    const focus = focusAfterDialog.current;
    focusAfterDialog.current = null;
    focus();
  }, [dialog]);
  const close = (thenFocus?: () => void) => {
    if (thenFocus) focusAfterDialog.current = thenFocus;
    setDialog(null);
  };
  return { dialog, open: setDialog, close };
}

export interface AppDialogsProps {
  dialogs: Dialogs;
  api: ProjectsApi;
  conv: ConversationApi;
  openSessionId: string | null;
  info: GatewayInfo | null;
  notify: NoticesApi['notify'];
  go: (r: Route) => void;
  withHomeConfirm: HomeConfirm['withHomeConfirm'];
  /** A conversation was renamed or deleted: shown search results may name or quote it. */
  onChanged: () => void;
}

export function AppDialogs({ dialogs, api, conv, openSessionId, info, notify, go, withHomeConfirm, onChanged }: AppDialogsProps) {
  const { rpc } = useRpc();
  const { dialog, close } = dialogs;
  if (!dialog) return null;

  /** Closes a rename/export/delete dialog and gives the focus back to what opened its menu. */
  const closeDataDialog = (opener: HTMLElement | null) =>
    close(() => {
      if (opener?.isConnected) opener.focus();
    });

  /** After a real delete: leave a conversation that no longer exists, refresh, and put the focus somewhere that still exists. */
  const afterDelete = (target: DataTarget, text: string) => {
    notify('success', text);
    const gone = target.kind === 'conversation' ? target.conversation.members.map((m) => m.id) : null;
    if (openSessionId && (gone ? gone.includes(openSessionId) : conv.session?.projectId === (target.kind === 'project' ? target.project.id : undefined))) go({ view: 'home' });
    onChanged();
    const projectId = target.kind === 'conversation' ? target.conversation.projectId : null;
    // The deleted row (the menu's opener) is gone: its project's header takes the focus.
    const focusGroup = () => {
      const group = document.querySelector<HTMLElement>(projectId ? `[data-project-id="${CSS.escape(projectId)}"] .group-toggle` : '.sidebar .group-toggle');
      (group ?? document.querySelector<HTMLElement>('.sidebar button'))?.focus();
    };
    const lost = () => !document.activeElement || document.activeElement === document.body;
    // The reload re-renders the sidebar (the focused header may be replaced): focus again if it fell to <body>.
    void (target.kind === 'project' ? api.reloadAll() : api.refreshGroups([target.conversation.projectId]))
      .catch(() => undefined)
      .then(() => requestAnimationFrame(() => lost() && focusGroup()));
    close(focusGroup);
  };

  /** Same-named projects are allowed (ids decide), but people should know before making one. */
  const duplicateName = (name: string | undefined, except?: string): string | null => {
    const n = name?.trim().toLocaleLowerCase();
    const same = n ? api.projects.filter((p) => p.id !== except && p.name.trim().toLocaleLowerCase() === n) : [];
    if (same.length === 0) return null;
    const where = same.map((p) => (orderedFolders(p)[0] ? `folder ${shortPath(orderedFolders(p)[0]!, 2)}` : 'no folder')).join(', ');
    return `A project named “${same[0]!.name}” already exists (${where}${same.some((p) => p.archived) ? ', archived' : ''}). You can still use the name; menus tell them apart by folder.`;
  };

  switch (dialog.kind) {
    case 'renameConversation':
      return (
        <TextDialog
          title="Rename conversation"
          description="The new title is shown in the sidebar and in search results; the conversation stays where it is."
          // Named "title" on purpose: data-actions.test.ts checks that this field's label works beside the heading's id.
          fields={[{ name: 'title', label: 'Title', required: true, initial: dialog.conversation.title === 'Untitled conversation' ? '' : dialog.conversation.title }]}
          submitLabel="Rename"
          onClose={() => closeDataDialog(dialog.opener)}
          onSubmit={async (v) => {
            await rpc.call('session.title', { sessionId: dialog.conversation.root.id, title: v.title ?? '' });
            notify('success', `Renamed to “${v.title}”`);
            void api.refreshGroups([dialog.conversation.projectId]).catch(() => undefined);
            onChanged();
            if (openSessionId && dialog.conversation.members.some((m) => m.id === openSessionId)) await conv.reload();
          }}
        />
      );
    case 'export':
      return <ExportDialog target={dialog.target} onClose={() => closeDataDialog(dialog.opener)} onDone={(text) => notify('success', text)} />;
    case 'delete':
      return <DeleteDialog target={dialog.target} onClose={() => closeDataDialog(dialog.opener)} onDeleted={(text) => afterDelete(dialog.target, text)} />;
    case 'agent':
      return <AgentDialog target={dialog.target} info={info} onClose={() => close()} />;
    case 'createProject':
      return (
        <TextDialog
          title="New project"
          description="A project is an explicit home for conversations. Folders are only metadata (the default directory for new conversations)."
          fields={[
            { name: 'name', label: 'Name', required: true, placeholder: 'e.g. grepline', initial: dialog.folder ? baseName(dialog.folder) : '' },
            { name: 'folder', label: 'Folder (optional)', placeholder: '/home/you/src/project', initial: dialog.folder ?? '' },
          ]}
          submitLabel="Create project"
          warning={(v) => duplicateName(v.name)}
          onClose={() => close()}
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
      );
    case 'renameProject':
      return (
        <TextDialog
          title="Rename project"
          description="Renaming never changes which conversations belong to it."
          fields={[{ name: 'name', label: 'Name', required: true, initial: dialog.project.name }]}
          submitLabel="Rename"
          warning={(v) => duplicateName(v.name, dialog.project.id)}
          onClose={() => close()}
          onSubmit={async (v) => {
            const p = await api.renameProject(dialog.project.id, v.name ?? '');
            notify('success', `Renamed to “${p.name}”`);
          }}
        />
      );
    case 'addFolder':
      return (
        <TextDialog
          title={`Add a folder to “${dialog.project.name}”`}
          description="Folders are metadata: the default directory of new conversations and a hint for suggestions. They never move conversations."
          fields={[{ name: 'path', label: 'Folder path', required: true, placeholder: '/home/you/src/project' }]}
          submitLabel="Add folder"
          onClose={() => close()}
          onSubmit={async (v) => {
            const path = v.path ?? '';
            const problem = folderProblem(path);
            if (problem) throw new Error(problem);
            const p = await withHomeConfirm(path, (confirmHome) => api.addFolder(dialog.project.id, path, confirmHome));
            if (!p) throw new Error('Not added: choose a folder inside your home folder.');
            notify('success', `Added ${v.path} to “${dialog.project.name}”`);
          }}
        />
      );
    case 'cwd':
      return (
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
          onClose={() => close()}
          onSubmit={async (v) => {
            const sessionId = dialog.conversation.head.id;
            const s =
              openSessionId === sessionId ? await conv.setCwd(v.cwd ?? '') : await rpc.call('session.cwd.set', { sessionId, cwd: v.cwd ?? '' });
            notify('success', `Directory set to ${s.cwd ?? v.cwd}; project unchanged (${projectName(api.projects, s.projectId)})`);
            void api.refreshGroups([s.projectId]).catch(() => undefined);
          }}
        />
      );
  }
}
