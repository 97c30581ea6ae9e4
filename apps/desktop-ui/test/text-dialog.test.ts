/**
 * TextDialog's ids, rendered to HTML with React's server renderer (no browser needed): every id is
 * unique, the dialog is labelled by its heading, and each field's <label for> names its own input —
 * also for fields whose names collide with the dialog's own ids ("title" used to take the heading's
 * id and leave the Title label pointing at the <h2>).
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, test } from 'vitest';
import { TextDialog, type Field } from '../src/components/TextDialog';

function render(fields: Field[]): string {
  return renderToStaticMarkup(createElement(TextDialog, { title: 'Rename conversation', fields, submitLabel: 'Rename', onSubmit: async () => undefined, onClose: () => undefined }));
}

const ids = (html: string) => [...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!);
const attr = (html: string, tag: string, name: string) => [...html.matchAll(new RegExp(`<${tag}\\b[^>]*\\s${name}="([^"]+)"`, 'g'))].map((m) => m[1]!);

describe('TextDialog ids', () => {
  test.each([
    [[{ name: 'title', label: 'Title' }]],
    [[{ name: 'name', label: 'Name' }, { name: 'folder', label: 'Folder (optional)' }]],
    [[{ name: 'title', label: 'Title' }, { name: 'field-title', label: 'Other' }]],
    [[{ name: 'cwd', label: 'Directory' }]],
  ])('fields %j: unique ids, the heading labels the dialog, each label names its input', (fields) => {
    const html = render(fields);
    const all = ids(html);
    expect(new Set(all).size, `duplicate ids in ${html}`).toBe(all.length);
    const [labelledBy] = attr(html, 'dialog', 'aria-labelledby');
    expect(attr(html, 'h2', 'id')).toEqual([labelledBy]);
    const inputs = attr(html, 'input', 'id');
    expect(attr(html, 'label', 'for')).toEqual(inputs);
    expect(inputs).toHaveLength(fields.length);
    expect(inputs).not.toContain(labelledBy);
  });
});
