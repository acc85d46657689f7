/**
 * Escape in the reader's side panels: an open panel takes it (it closes); a panel already closed but still sliding
 * out (focusable until it is inert, usePanelInert) leaves it to the reader's keys, which leave the immersive view
 * with it. Swallowed there, the bars stayed hidden (e2e/reader-screen.e2e.ts, Tab walk in the immersive view).
 */
import { fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_PREFERENCES } from '@lectern/core';
import { SettingsPanel } from '../src/features/reader/SettingsPanel.tsx';

function renderPanel(open: boolean, onClose: () => void) {
  const props = { prefs: DEFAULT_PREFERENCES, isPdf: false, onChange: () => {}, onReset: () => {}, onClose, chrome: { masthead: true, menu: true }, onChrome: () => {} };
  const view = render(<SettingsPanel open={open} {...props} />);
  return { rerender: (next: boolean) => view.rerender(<SettingsPanel open={next} {...props} />) };
}

describe('Escape in the display settings', () => {
  const seen: string[] = [];
  const onWindowKey = (e: KeyboardEvent) => seen.push(e.key);
  afterEach(() => {
    window.removeEventListener('keydown', onWindowKey);
    seen.length = 0;
  });

  it('closes the open panel and goes no further', () => {
    window.addEventListener('keydown', onWindowKey);
    const onClose = vi.fn();
    renderPanel(true, onClose);
    fireEvent.keyDown(screen.getByRole('button', { name: 'Pages' }), { key: 'Escape' });
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(seen).toEqual([]);
  });

  it('reaches the reader from a panel already closed that still has the focus', () => {
    window.addEventListener('keydown', onWindowKey);
    const onClose = vi.fn();
    const panel = renderPanel(true, onClose);
    // focused while open, kept through the close (focus that enters a closing panel is moved past it)
    const pages = screen.getByRole('button', { name: 'Pages' });
    pages.focus();
    panel.rerender(false);
    expect(document.activeElement).toBe(pages);
    fireEvent.keyDown(pages, { key: 'Escape' });
    expect(onClose).not.toHaveBeenCalled();
    expect(seen).toEqual(['Escape']);
  });
});
