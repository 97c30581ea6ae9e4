/**
 * Suggestions from `projects.discovered`: working folders of conversations that no project folder
 * covers. A folder is not a project id; starting a conversation there, making it a project, or
 * dropping a conversation on it first turns it into an explicit project (`projects.for_folder`).
 */
import { useState } from 'react';
import { shortPath } from '../lib/format';
import type { DiscoveredFolder } from '@recall/rpc-contract';
import { DropZone } from './DropZone';
import { FolderIcon } from './FolderIcon';

export interface DiscoveredFoldersProps {
  folders: DiscoveredFolder[];
  busyPath: string | null;
  onStartHere: (path: string) => void;
  onMakeProject: (path: string) => void;
  onDropConversation: (key: string, path: string) => void;
}

export function DiscoveredFolders({ folders, busyPath, onStartHere, onMakeProject, onDropConversation }: DiscoveredFoldersProps) {
  const [open, setOpen] = useState(true);
  if (folders.length === 0) return null;
  return (
    <section className="discovered" aria-label="Suggested folders">
      <button type="button" className="section-toggle" aria-expanded={open} onClick={() => setOpen((v) => !v)}>
        <span className="chev" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        Suggested from folders <span className="count">{folders.length}</span>
      </button>
      {open && (
        <>
          <p className="group-note">Folders your conversations used that no project covers yet. Using one makes it a project.</p>
          <ul className="folder-list">
            {folders.map((f) => (
              <DropZone
                key={f.path}
                as="li"
                className="folder"
                label={`Folder ${f.path}`}
                attrs={{ 'data-folder': f.path }}
                onDropConversation={(key) => onDropConversation(key, f.path)}
              >
                <span className="folder-path" title={f.path}>
                  <FolderIcon /> {shortPath(f.path, 2)}
                  <span className="folder-count"> · {f.sessionCount} conv.</span>
                </span>
                <span className="folder-actions">
                  {busyPath === f.path ? (
                    <span className="status-text">Creating project…</span>
                  ) : (
                    <>
                      <button type="button" className="link-btn" onClick={() => onStartHere(f.path)} aria-label={`Start a conversation in ${f.path}`}>
                        Start here
                      </button>
                      <button type="button" className="link-btn" onClick={() => onMakeProject(f.path)} aria-label={`Make ${f.path} a project`}>
                        Make project
                      </button>
                    </>
                  )}
                </span>
              </DropZone>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
