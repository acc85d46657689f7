/**
 * Images in a chapter frame (reader.md §5): one worth a closer look (wider than 50 px and than its container) gets
 * the lightbox by click or keyboard; one that fails to load says so in place; one that arrives changes the layout,
 * so the reader's place is put back (onLoad).
 */
import { MESSAGES, READER_CONSTANTS } from '@lectern/core';
import type { Listen } from './listeners.ts';

/** Frames have their own HTMLImageElement, so instanceof against the app's would fail. */
const isImage = (n: unknown): n is HTMLImageElement => !!n && (n as Node).nodeName === 'IMG';

export interface ImageHooks {
  /** An image worth a closer look. */
  onImage(src: string, alt: string): void;
  /** An image arrived (and may have moved the text). */
  onLoad(): void;
}

export class FrameImages {
  constructor(
    private readonly doc: Document,
    listen: Listen,
    private readonly hooks: ImageHooks,
  ) {
    // Images that fail later (lazy ones) and images that arrive and change the layout.
    listen(doc, 'error', (e) => {
      if (isImage(e.target)) this.markFailed(e.target);
    }, { capture: true });
    listen(doc, 'load', (e) => {
      if (isImage(e.target)) {
        this.markZoomable(e.target);
        this.hooks.onLoad();
      }
    }, { capture: true });
    for (const img of Array.from(doc.images)) {
      if (img.complete && img.naturalWidth === 0 && img.getAttribute('src')) this.markFailed(img);
      else if (img.complete) this.markZoomable(img);
    }
  }

  /** A click on an image with a lightbox opens it. True when taken. */
  click(event: MouseEvent, el: Element | null): boolean {
    if (!isImage(el) || !el.classList.contains('lectern-zoomable')) return false;
    event.preventDefault();
    this.hooks.onImage(el.currentSrc || el.src, el.alt);
    return true;
  }

  /** reader.md §5: images wider than 50 px and wider than their container get a lightbox. */
  private markZoomable(img: HTMLImageElement) {
    const shown = img.getBoundingClientRect().width;
    if (img.naturalWidth > READER_CONSTANTS.lightboxMinWidthPx && img.naturalWidth > shown + 1 && !img.closest('a[href]')) {
      img.classList.add('lectern-zoomable');
      img.setAttribute('tabindex', '0');
      img.setAttribute('role', 'button');
      img.setAttribute('aria-label', img.alt ? `Enlarge image: ${img.alt}` : 'Enlarge image');
      img.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          e.stopPropagation();
          this.hooks.onImage(img.currentSrc || img.src, img.alt);
        }
      });
    }
  }

  private markFailed(img: HTMLImageElement) {
    if (img.classList.contains('lectern-image-failed')) return;
    img.classList.add('lectern-image-failed');
    const note = this.doc.createElement('span');
    note.className = 'lectern-image-error';
    note.setAttribute('role', 'img');
    note.setAttribute('aria-label', img.alt ? `${img.alt}: ${MESSAGES.imageLoadFailed}` : MESSAGES.imageLoadFailed);
    note.textContent = MESSAGES.imageLoadFailed;
    img.after(note);
  }
}
