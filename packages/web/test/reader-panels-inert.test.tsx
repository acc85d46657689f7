/**
 * A reader side panel that is closing (still sliding out, not inert yet: usePanelInert) cannot be reached by the
 * keyboard: focus that enters it makes it inert at once and goes on past it, forwards or (Shift+Tab) backwards.
 */
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PREFERENCES } from '@lectern/core';
import { SettingsPanel } from '../src/features/reader/SettingsPanel.tsx';

function renderBetween(open: boolean) {
  const props = { prefs: DEFAULT_PREFERENCES, isPdf: false, onChange: () => {}, onReset: () => {}, onClose: () => {}, chrome: { masthead: true, menu: true }, onChrome: () => {} };
  const ui = (o: boolean) => (
    <>
      <button type="button">Before</button>
      <SettingsPanel open={o} {...props} />
      <button type="button">After</button>
    </>
  );
  const view = render(ui(open));
  return {
    close: () => view.rerender(ui(false)),
    panel: () => screen.getByRole('button', { name: 'Pages', hidden: true }).closest<HTMLElement>('section[aria-label="Display settings"]')!,
    inside: () => screen.getByRole('button', { name: 'Pages', hidden: true }),
  };
}

describe('a closing reader side panel', () => {
  it('is out of the accessibility tree at once and not inert before focus reaches it (the restyle waits)', () => {
    const p = renderBetween(true);
    p.close();
    expect(p.panel().getAttribute('aria-hidden')).toBe('true');
    expect(p.panel().hasAttribute('inert')).toBe(false);
  });

  it('Tab into it while it slides out: inert at once, focus goes on to the next control past it', () => {
    const p = renderBetween(true);
    screen.getByRole('button', { name: 'Before' }).focus();
    p.close();
    p.inside().focus(); // where Tab from "Before" lands
    expect(p.panel().hasAttribute('inert')).toBe(true);
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'After' }));
  });

  it('Shift+Tab into it from after: focus goes back to the control before it', () => {
    const p = renderBetween(true);
    const after = screen.getByRole('button', { name: 'After' });
    after.focus();
    p.close();
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Tab', shiftKey: true }));
    p.inside().focus();
    expect(p.panel().hasAttribute('inert')).toBe(true);
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Before' }));
  });

  it('focus inside an open panel stays there', () => {
    const p = renderBetween(true);
    p.inside().focus();
    expect(document.activeElement).toBe(p.inside());
    expect(p.panel().hasAttribute('inert')).toBe(false);
  });
});
