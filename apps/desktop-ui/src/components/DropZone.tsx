/**
 * Wraps a sidebar region that accepts dropped conversations (a project, "No project", a discovered
 * folder). Highlights while a conversation is dragged over it and reports the dropped key.
 */
import { useRef, useState, type ReactNode } from 'react';
import { conversationKeyOf, isConversationDrag } from '../state/dnd';

export interface DropZoneProps {
  className: string;
  label: string;
  onDropConversation: (key: string) => void;
  children: ReactNode;
  as?: 'section' | 'li';
  attrs?: Record<string, string>;
}

export function DropZone({ className, label, onDropConversation, children, as = 'section', attrs }: DropZoneProps) {
  const [over, setOver] = useState(false);
  const depth = useRef(0);
  const Tag = as;
  return (
    <Tag
      className={`${className}${over ? ' drop-over' : ''}`}
      aria-label={label}
      {...attrs}
      onDragEnter={(e) => {
        if (!isConversationDrag(e.dataTransfer)) return;
        depth.current++;
        setOver(true);
      }}
      onDragOver={(e) => {
        if (!isConversationDrag(e.dataTransfer)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = 'move';
      }}
      onDragLeave={(e) => {
        if (!isConversationDrag(e.dataTransfer)) return;
        depth.current = Math.max(0, depth.current - 1);
        if (depth.current === 0) setOver(false);
      }}
      onDrop={(e) => {
        depth.current = 0;
        setOver(false);
        const key = conversationKeyOf(e.dataTransfer);
        if (!key) return;
        e.preventDefault();
        onDropConversation(key);
      }}
    >
      {children}
    </Tag>
  );
}
