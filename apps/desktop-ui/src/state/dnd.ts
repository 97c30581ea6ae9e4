/**
 * Drag-and-drop payload of a conversation. The key travels in the DataTransfer under our own MIME
 * type (so foreign drags are ignored during dragover, when only types are readable).
 */
export const CONVERSATION_MIME = 'application/x-recall-conversation';

export function setConversationDrag(dt: DataTransfer, key: string, title: string): void {
  dt.setData(CONVERSATION_MIME, key);
  dt.setData('text/plain', title);
  dt.effectAllowed = 'move';
}

export function isConversationDrag(dt: DataTransfer | null): boolean {
  return !!dt && Array.from(dt.types).includes(CONVERSATION_MIME);
}

export function conversationKeyOf(dt: DataTransfer | null): string | null {
  if (!dt) return null;
  const v = dt.getData(CONVERSATION_MIME);
  return v ? v : null;
}
