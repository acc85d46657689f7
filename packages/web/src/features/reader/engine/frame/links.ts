/**
 * Links and footnotes in a chapter frame: a link within the chapter goes to its anchor (or, while a long chapter is
 * still going in, once its part is in), one to another chapter becomes an app path, one out of the book goes
 * through the app's question, and a footnote link (EPUB 3 noteref) opens the note over the page, the page kept.
 */
import { paths, READING_MESSAGES } from '@lectern/core';
import { stripSupplied } from '../hyphenation.ts';

/** What a footnote link's target is part of, when it is a note (EPUB 3 structural semantics, DPUB-ARIA). */
const NOTE_SELECTOR = ['footnote', 'endnote', 'rearnote', 'note'].map((t) => `[data-epub-type~="${t}"]`).concat('[role="doc-footnote"]', '[role="doc-endnote"]').join(', ');

export interface LinkHooks {
  /** A link to another chapter of the book (already an app path with its hash). */
  onNavigate(path: string): void;
  /** A link out of the book (http, https, mailto): the app asks first. Without it the link opens at once. */
  onExternalLink?(url: string): void;
}

export class FrameLinks {
  /**
   * True while the rest of a long chapter is going in (ChapterView, engine/chapterSlices.ts): a link to a place not
   * yet in the document is followed once it is (complete()), not dropped.
   */
  filling = false;
  private pendingAnchor: string | null = null;
  private notePopup: HTMLElement | null = null;
  private noteOpener: Element | null = null;
  private readonly chapterApiPrefix: string;

  constructor(
    private readonly doc: Document,
    bookId: string,
    private readonly readerPath: (fullPath: string) => string,
    private readonly hooks: LinkHooks,
    /** To an anchor of this chapter; false when it is not (yet) in the document. */
    private readonly goToAnchor: (id: string) => boolean,
  ) {
    this.chapterApiPrefix = paths.chapterApiPrefix(bookId);
  }

  /** The whole chapter is in: a link clicked to a part that was not yet in goes there now. */
  complete() {
    this.filling = false;
    const id = this.pendingAnchor;
    this.pendingAnchor = null;
    if (id !== null) this.goToAnchor(id);
  }

  /** A click in the page: closes an open note when outside it, follows a link. True when taken (nothing else acts). */
  click(event: MouseEvent, el: Element | null): boolean {
    // A tap outside an open note closes it (and turns no page).
    if (this.notePopup && !this.notePopup.contains(el)) {
      this.closeNote(true);
      return true;
    }
    const anchor = el?.closest?.('a[href]');
    if (!anchor) return false;
    this.onLink(event, anchor);
    return true;
  }

  /** Escape closes an open note, the keyboard back on its link. True when taken. */
  escape(event: KeyboardEvent): boolean {
    if (!this.notePopup || event.key !== 'Escape') return false;
    event.preventDefault();
    event.stopPropagation();
    this.closeNote(true);
    return true;
  }

  private onLink(event: MouseEvent, anchor: Element) {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const raw = (anchor.getAttribute('href') ?? '').trim();
    // A link inside an open note (its back link, most often) closes it first.
    if (this.notePopup?.contains(anchor)) this.closeNote(false);
    const note = this.noteFor(anchor, raw);
    if (note) {
      event.preventDefault();
      this.openNote(anchor, note);
      return;
    }
    // reader.md §2: http(s):// and mailto: links are left to the browser (a new tab: the reader stays open).
    if (/^(https?:|mailto:)/i.test(raw)) {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        event.preventDefault();
        return;
      }
      if (url.origin !== window.location.origin) {
        event.preventDefault();
        this.leave(url);
        return;
      }
    }
    event.preventDefault();
    let url: URL;
    try {
      url = new URL(raw, this.doc.baseURI);
    } catch {
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return; // javascript: and friends go nowhere
    const hash = url.hash.replace(/^#/, '');
    const samePlace = url.pathname === new URL(this.doc.baseURI).pathname || url.pathname === window.location.pathname;
    if (raw.startsWith('#') || (samePlace && hash)) {
      if (hash) {
        const id = decodeURIComponent(hash);
        // (the latest link wins; one to a part still going in is followed when it is in)
        this.pendingAnchor = !this.goToAnchor(id) && this.filling ? id : null;
      }
      return;
    }
    if (url.pathname.startsWith(this.chapterApiPrefix)) {
      const fullPath = url.pathname.slice(this.chapterApiPrefix.length).split('/').map(decodeURIComponent).join('/');
      this.hooks.onNavigate(this.readerPath(fullPath) + url.hash);
      return;
    }
    if (url.origin === window.location.origin && url.pathname.startsWith('/library/')) {
      this.hooks.onNavigate(url.pathname + url.search + url.hash);
      return;
    }
    this.leave(url);
  }

  /** Out of the book: through the app's question when it asks one, else straight to the browser. */
  private leave(url: URL) {
    if (this.hooks.onExternalLink) this.hooks.onExternalLink(url.href);
    else if (url.protocol === 'mailto:') window.location.href = url.href;
    else window.open(url.href, '_blank', 'noopener,noreferrer');
  }

  /**
   * The note a link points at, when it is a footnote link: marked `epub:type="noteref"` (or DPUB-ARIA
   * `doc-noteref`), or pointing at an element marked footnote / endnote / rearnote / note, in this chapter.
   */
  private noteFor(anchor: Element, raw: string): Element | null {
    if (!raw.startsWith('#') && !raw.includes('#')) return null;
    const hash = raw.slice(raw.indexOf('#') + 1);
    if (!hash) return null;
    let url: URL;
    try {
      url = new URL(raw, this.doc.baseURI);
    } catch {
      return null;
    }
    if (!raw.startsWith('#') && url.pathname !== new URL(this.doc.baseURI).pathname) return null;
    let id: string;
    try {
      id = decodeURIComponent(hash);
    } catch {
      return null;
    }
    const target = this.doc.getElementById(id);
    if (!target || target.contains(anchor)) return null;
    const types = (el: Element | null) => `${el?.getAttribute('data-epub-type') ?? ''} ${el?.getAttribute('role') ?? ''}`.toLowerCase().split(/\s+/);
    const isRef = types(anchor).some((t) => t === 'noteref' || t === 'doc-noteref');
    const note = target.closest(NOTE_SELECTOR);
    if (note) return note;
    return isRef ? target : null;
  }

  private openNote(anchor: Element, note: Element) {
    this.closeNote(false);
    const popup = this.doc.createElement('div');
    popup.className = 'lectern-note';
    popup.setAttribute('role', 'dialog');
    popup.setAttribute('aria-label', READING_MESSAGES.noteLabel);
    popup.tabIndex = -1;
    const body = this.doc.createElement('div');
    body.className = 'lectern-note__body';
    const copy = note.cloneNode(true) as Element;
    // the copy's ids would duplicate the chapter's (and its anchors' targets)
    for (const el of [copy, ...Array.from(copy.querySelectorAll('[id]'))]) el.removeAttribute('id');
    // (the note's words as the book has them: without the soft hyphens the frame put in)
    stripSupplied(this.doc, copy);
    body.append(copy);
    const close = this.doc.createElement('button');
    close.type = 'button';
    close.className = 'lectern-note__close';
    close.textContent = READING_MESSAGES.closeNote;
    close.addEventListener('click', (e) => {
      e.preventDefault();
      e.stopPropagation();
      this.closeNote(true);
    });
    popup.append(body, close);
    // on <html>, outside the body's page columns: a fixed box over the frame's viewport
    this.doc.documentElement.append(popup);
    this.notePopup = popup;
    this.noteOpener = anchor;
    popup.focus({ preventScroll: true });
  }

  /** Closes the open note; `refocus` puts the keyboard back on the link that opened it. */
  private closeNote(refocus: boolean) {
    if (!this.notePopup) return;
    this.notePopup.remove();
    this.notePopup = null;
    const opener = this.noteOpener as HTMLElement | null;
    this.noteOpener = null;
    if (refocus) opener?.focus?.({ preventScroll: true });
  }
}
