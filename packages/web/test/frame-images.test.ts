import { afterEach, describe, expect, it, vi } from 'vitest';
import { FrameImages } from '../src/features/reader/engine/frame/images.ts';
import { Listeners } from '../src/features/reader/engine/frame/listeners.ts';
import { chapterFrame, removeFrames } from './frame-fixture.ts';

const listeners = new Listeners();
afterEach(() => {
  listeners.removeAll();
  removeFrames();
});

/** jsdom loads no images: what the browser would say of one. */
function loaded(img: HTMLImageElement, naturalWidth: number, shownWidth: number) {
  Object.defineProperty(img, 'complete', { configurable: true, value: true });
  Object.defineProperty(img, 'naturalWidth', { configurable: true, value: naturalWidth });
  img.getBoundingClientRect = () => ({ width: shownWidth }) as DOMRect;
}

describe('frame images', () => {
  it('a large image shown smaller gets the lightbox, by click and by keyboard; a small or linked one does not', () => {
    const c = chapterFrame('<img id="big" src="big.png" alt="A map"><img id="small" src="s.png"><a href="#x"><img id="linked" src="l.png"></a>');
    const [big, small, linked] = ['big', 'small', 'linked'].map((id) => c.doc.getElementById(id) as HTMLImageElement);
    loaded(big!, 1600, 500);
    loaded(small!, 40, 40);
    loaded(linked!, 1600, 500);
    const hooks = { onImage: vi.fn(), onLoad: vi.fn() };
    const images = new FrameImages(c.doc, listeners.listen, hooks);
    expect(big!.classList.contains('lectern-zoomable')).toBe(true);
    expect(big!.getAttribute('aria-label')).toBe('Enlarge image: A map');
    expect(small!.classList.contains('lectern-zoomable')).toBe(false);
    expect(linked!.classList.contains('lectern-zoomable')).toBe(false);
    const click = new c.win.MouseEvent('click', { cancelable: true });
    expect(images.click(click, big!)).toBe(true);
    expect(click.defaultPrevented).toBe(true);
    expect(hooks.onImage).toHaveBeenCalledWith(big!.src, 'A map');
    expect(images.click(new c.win.MouseEvent('click'), small!)).toBe(false);
    big!.dispatchEvent(new c.win.KeyboardEvent('keydown', { key: 'Enter', cancelable: true }));
    expect(hooks.onImage).toHaveBeenCalledTimes(2);
  });

  it('an image that failed says so in place, once', () => {
    const c = chapterFrame('<img id="gone" src="gone.png" alt="Plan"><img id="lazy" src="lazy.png">');
    const gone = c.doc.getElementById('gone') as HTMLImageElement;
    loaded(gone, 0, 0);
    new FrameImages(c.doc, listeners.listen, { onImage: vi.fn(), onLoad: vi.fn() });
    const note = gone.nextElementSibling!;
    expect(note.className).toBe('lectern-image-error');
    expect(note.getAttribute('aria-label')).toBe('Plan: The image could not be loaded.');
    expect(note.textContent).toBe('The image could not be loaded.');
    const lazy = c.doc.getElementById('lazy')!;
    lazy.dispatchEvent(new c.win.Event('error'));
    lazy.dispatchEvent(new c.win.Event('error'));
    expect(c.doc.querySelectorAll('.lectern-image-error')).toHaveLength(2);
  });

  it('an image arriving later is looked at and the place put back', () => {
    const c = chapterFrame('<img id="late" src="late.png">');
    const late = c.doc.getElementById('late') as HTMLImageElement;
    const hooks = { onImage: vi.fn(), onLoad: vi.fn() };
    new FrameImages(c.doc, listeners.listen, hooks);
    expect(late.classList.contains('lectern-zoomable')).toBe(false);
    loaded(late, 1200, 300);
    late.dispatchEvent(new c.win.Event('load'));
    expect(late.classList.contains('lectern-zoomable')).toBe(true);
    expect(hooks.onLoad).toHaveBeenCalledOnce();
    listeners.removeAll();
    late.dispatchEvent(new c.win.Event('load'));
    expect(hooks.onLoad).toHaveBeenCalledOnce();
  });
});
