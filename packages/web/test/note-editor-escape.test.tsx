/**
 * Escape in the reader's note editor (reader.md §4 "Escape cancels") never throws typed text away unasked: with
 * unsaved text it asks first, with the create-playlist dialog's confirmation (DiscardConfirm, components/Modal.tsx).
 */
import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { Editor, type EditorState } from '../src/features/reader/annotations/AnnotationLayer.tsx';
import type { RangeDescription } from '../src/features/reader/annotations/anchoring.ts';

const state: EditorState = {
  target: { kind: 'new', description: { quote: 'the nineteenth century' } as RangeDescription, preview: false },
  box: { left: 10, top: 100, right: 200, bottom: 120 },
};
const principal = { userId: 'u1', consumerKey: 'lectern', isAdmin: false };

function renderEditor() {
  const onCancel = vi.fn();
  const onSave = vi.fn(async () => {});
  render(<Editor state={state} principal={principal} onCancel={onCancel} onSave={onSave} />);
  return { onCancel, onSave, note: () => screen.getByRole<HTMLTextAreaElement>('textbox', { name: 'Note' }) };
}

describe('Escape in the note editor', () => {
  it('with nothing typed cancels at once', () => {
    const { onCancel, note } = renderEditor();
    fireEvent.keyDown(note(), { key: 'Escape' });
    expect(onCancel).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });

  it('with unsaved text asks first: Keep editing (or Escape) keeps the text, Discard cancels', () => {
    const { onCancel, onSave, note } = renderEditor();
    fireEvent.change(note(), { target: { value: 'Worth rereading' } });
    fireEvent.keyDown(note(), { key: 'Escape' });
    expect(onCancel).not.toHaveBeenCalled();
    const ask = screen.getByRole('alertdialog', { name: 'Discard what you typed?' });
    expect(ask.textContent).toContain('has not been saved');
    // Escape in the question goes back to editing, the text still there
    fireEvent.keyDown(screen.getByRole('button', { name: 'Keep editing' }), { key: 'Escape' });
    expect(onCancel).not.toHaveBeenCalled();
    expect(note().value).toBe('Worth rereading');
    fireEvent.keyDown(note(), { key: 'Escape' });
    fireEvent.click(screen.getByRole('button', { name: 'Keep editing' }));
    expect(onCancel).not.toHaveBeenCalled();
    expect(note().value).toBe('Worth rereading');
    fireEvent.keyDown(note(), { key: 'Escape' });
    fireEvent.click(screen.getByRole('button', { name: 'Discard' }));
    expect(onCancel).toHaveBeenCalledTimes(1);
    expect(onSave).not.toHaveBeenCalled();
  });
});
