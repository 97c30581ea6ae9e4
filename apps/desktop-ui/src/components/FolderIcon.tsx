/**
 * A small folder glyph (inline SVG, so it renders without an emoji font), decorative only.
 */
export function FolderIcon() {
  return (
    <svg className="folder-icon" viewBox="0 0 16 16" width="12" height="12" aria-hidden="true" focusable="false">
      <path d="M1.5 3.5h4l1.5 1.5h7.5v8h-13z" fill="none" stroke="currentColor" strokeWidth="1.3" strokeLinejoin="round" />
    </svg>
  );
}
