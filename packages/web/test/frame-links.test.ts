import { READING_MESSAGES } from '@lectern/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FrameLinks } from '../src/features/reader/engine/frame/links.ts';
import { chapterFrame, removeFrames, type ChapterFrame } from './frame-fixture.ts';

afterEach(() => {
  removeFrames();
  vi.unstubAllGlobals();
});

const CHAPTER = `
  <p>A claim<a id="ref" href="#n1" data-epub-type="noteref">1</a> and <a id="plain" href="#later">a plain link</a>.</p>
  <p><a id="other" href="/api/v1/book/b1/chapter/text/two.xhtml#s2">the next chapter</a>
     <a id="out" href="https://example.org/x">out</a> <a id="js" href="javascript:alert(1)">js</a></p>
  <aside data-epub-type="footnote" id="n1"><p id="n1p">The note. <a id="back" href="#ref">back</a></p></aside>`;

function links(c: ChapterFrame, goToAnchor = vi.fn((_id: string) => true)) {
  const hooks = { onNavigate: vi.fn(), onExternalLink: vi.fn() };
  const l = new FrameLinks(c.doc, 'b1', (full) => `/library/b1/read/${full}`, hooks, goToAnchor);
  const click = (id: string | null) => {
    const el = id ? c.doc.getElementById(id) : c.root;
    const e = new c.win.MouseEvent('click', { bubbles: true, cancelable: true });
    Object.defineProperty(e, 'target', { value: el });
    return { taken: l.click(e, el), prevented: e.defaultPrevented };
  };
  return { l, hooks, goToAnchor, click };
}

describe('frame links: footnotes', () => {
  it('a noteref opens its note over the page, a copy without ids, and Escape closes it back onto the link', () => {
    const c = chapterFrame(CHAPTER);
    const { l, click, goToAnchor } = links(c);
    expect(click('ref')).toEqual({ taken: true, prevented: true });
    const popup = c.doc.querySelector('.lectern-note')!;
    expect(popup.getAttribute('role')).toBe('dialog');
    expect(popup.getAttribute('aria-label')).toBe(READING_MESSAGES.noteLabel);
    expect(popup.textContent).toContain('The note.');
    expect(popup.querySelectorAll('[id]')).toHaveLength(0);
    expect(c.doc.querySelectorAll('#n1p')).toHaveLength(1);
    expect(goToAnchor).not.toHaveBeenCalled();
    const esc = new c.win.KeyboardEvent('keydown', { key: 'Escape', cancelable: true });
    expect(l.escape(esc)).toBe(true);
    expect(c.doc.querySelector('.lectern-note')).toBeNull();
    expect(c.doc.activeElement?.id).toBe('ref');
    expect(l.escape(new c.win.KeyboardEvent('keydown', { key: 'Escape' }))).toBe(false);
  });

  it('a tap outside an open note closes it and does nothing else', () => {
    const c = chapterFrame(CHAPTER);
    const { click, goToAnchor } = links(c);
    click('ref');
    expect(click('plain').taken).toBe(true);
    expect(c.doc.querySelector('.lectern-note')).toBeNull();
    expect(goToAnchor).not.toHaveBeenCalled();
    expect(click(null).taken).toBe(false);
  });
});

describe('frame links: where a link goes', () => {
  it('within the chapter to its anchor; one not in yet is followed when the chapter is complete', () => {
    const c = chapterFrame(CHAPTER);
    const goToAnchor = vi.fn((id: string) => id !== 'later');
    const { l, click } = links(c, goToAnchor);
    l.filling = true;
    click('plain');
    expect(goToAnchor).toHaveBeenCalledWith('later');
    goToAnchor.mockReturnValue(true);
    l.complete();
    expect(goToAnchor).toHaveBeenCalledTimes(2);
    expect(l.filling).toBe(false);
    l.complete();
    expect(goToAnchor).toHaveBeenCalledTimes(2);
  });

  it('to another chapter as an app path; out of the book through the app; javascript: nowhere', () => {
    const c = chapterFrame(CHAPTER);
    const { click, hooks } = links(c);
    click('other');
    expect(hooks.onNavigate).toHaveBeenCalledWith('/library/b1/read/text/two.xhtml#s2');
    expect(click('out').prevented).toBe(true);
    expect(hooks.onExternalLink).toHaveBeenCalledWith('https://example.org/x');
    expect(click('js').prevented).toBe(true);
    expect(hooks.onNavigate).toHaveBeenCalledTimes(1);
    expect(hooks.onExternalLink).toHaveBeenCalledTimes(1);
  });

  it('without the app’s question a link out opens in a new tab', () => {
    const c = chapterFrame(CHAPTER);
    const open = vi.fn();
    vi.stubGlobal('open', open);
    const l = new FrameLinks(c.doc, 'b1', (f) => f, { onNavigate: vi.fn() }, () => true);
    const el = c.doc.getElementById('out')!;
    l.click(new c.win.MouseEvent('click', { cancelable: true }), el);
    expect(open).toHaveBeenCalledWith('https://example.org/x', '_blank', 'noopener,noreferrer');
  });
});
