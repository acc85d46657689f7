/**
 * The reader's one side panel (shared/reading/SidePanel.tsx) that the contents, search, display settings and notes
 * are built on: its head and close button, its name, hidden while closed, the focus moved in on opening, and
 * Escape taken only while open (a panel sliding out leaves it to the reader's keys).
 */
import { fireEvent, render, screen } from '@testing-library/react';
import { useRef } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SidePanel, type SidePanelProps } from '../src/shared/reading/SidePanel.tsx';

function Panel(props: Partial<SidePanelProps> & { withField?: boolean }) {
  const field = useRef<HTMLInputElement>(null);
  const { withField, ...rest } = props;
  return (
    <SidePanel open block="reader-search" label="Search this book" heading="Search" closeLabel="Close search" onClose={() => {}} initialFocus={withField ? field : undefined} {...rest}>
      <input ref={field} aria-label="Words" defaultValue="whale" />
    </SidePanel>
  );
}

describe('SidePanel', () => {
  const seen: string[] = [];
  const onWindowKey = (e: KeyboardEvent) => seen.push(e.key);
  afterEach(() => {
    window.removeEventListener('keydown', onWindowKey);
    seen.length = 0;
  });

  it('names itself, shows its head, and moves the focus to its close button when it opens', () => {
    const onClose = vi.fn();
    const { rerender } = render(<Panel open={false} onClose={onClose} />);
    const panel = screen.getByLabelText('Search this book', { selector: 'aside' });
    expect([panel.getAttribute('aria-hidden'), panel.className, panel.hasAttribute('inert')]).toEqual(['true', 'reader-search', true]);
    rerender(<Panel open onClose={onClose} />);
    expect([panel.getAttribute('aria-hidden'), panel.className, panel.hasAttribute('inert')]).toEqual(['false', 'reader-search reader-search--open', false]);
    expect(screen.getByRole('heading', { level: 2 }).textContent).toBe('Search');
    const close = screen.getByRole('button', { name: 'Close search' });
    expect(document.activeElement).toBe(close);
    fireEvent.click(close);
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('selects the text of the field it is given to focus', () => {
    render(<Panel withField as="section" className="reader-notes" />);
    const field = screen.getByLabelText<HTMLInputElement>('Words');
    expect(document.activeElement).toBe(field);
    expect([field.selectionStart, field.selectionEnd]).toEqual([0, 'whale'.length]);
    expect(field.closest('section')!.className).toBe('reader-search reader-notes reader-search--open');
  });

  it('takes Escape while open and goes no further; closed, leaves it to the reader', () => {
    window.addEventListener('keydown', onWindowKey);
    const onClose = vi.fn();
    const { rerender } = render(<Panel onClose={onClose} />);
    fireEvent.keyDown(screen.getByLabelText('Words'), { key: 'Escape' });
    expect([onClose.mock.calls.length, seen]).toEqual([1, []]);
    rerender(<Panel open={false} onClose={onClose} />);
    fireEvent.keyDown(screen.getByLabelText('Words'), { key: 'Escape' });
    expect([onClose.mock.calls.length, seen]).toEqual([1, ['Escape']]);
  });

  it('inline: no head, not hidden, no focus moved (the video screen\'s contents tab)', () => {
    const before = document.activeElement;
    render(<Panel inline block="toc" className="toc--inline" label="Table of contents" />);
    const panel = screen.getByLabelText('Table of contents', { selector: 'aside' });
    expect([panel.className, panel.hasAttribute('aria-hidden'), screen.queryByRole('button')]).toEqual(['toc toc--inline', false, null]);
    expect(document.activeElement).toBe(before);
  });
});
