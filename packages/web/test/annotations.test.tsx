/**
 * Annotations on the client (docs/decisions.md "Annotations in the reader"): describing a selection and anchoring it
 * again on stored chapter markup — unchanged, edited before, inside and after the highlight, the words repeated
 * elsewhere, the words gone (an orphan) — the note's markdown rendered as elements only (hostile notes stay text),
 * the token keeper's refresh and retry timings (reader.md §9) and its failure's notice (§8 "Couldn't get auth
 * token:"), and a browser that cannot annotate told so (§8 "Sorry your current browser does not support the
 * Annotator") with nothing asked of the store.
 */
import { ANNOTATION_TIMING } from '@lectern/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../src/api/client.ts';
import { anchorAll, describeRange } from '../src/features/reader/annotations/anchoring.ts';
import { NoteMarkdown } from '../src/features/reader/annotations/NoteMarkdown.tsx';
import { annotatorSupported } from '../src/features/reader/annotations/selection.ts';
import { failureNotice } from '../src/features/reader/annotations/store.ts';
import { TokenKeeper, tokenClaims } from '../src/features/reader/annotations/tokenKeeper.ts';
import { useChapterAnnotations } from '../src/features/reader/annotations/useChapterAnnotations.ts';
import { json, stubFetch } from './helpers.tsx';

const CHAPTER = `<div id="root"><h1>Chapter I</h1><p>No one would have believed in the last years of the <em>nineteenth century</em> that this world was being watched keenly.</p><p>The planet Mars, I scarcely need remind the reader, revolves about the sun.</p><p>Mars again: the planet Mars.</p></div>`;

function rootOf(html: string): Element {
  document.body.innerHTML = html;
  return document.getElementById('root')!;
}

/** A range over the first occurrence of `words` in root's text (across element boundaries). */
function select(root: Element, words: string, nth = 0): Range {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes: Text[] = [];
  let text = '';
  const starts: number[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    nodes.push(n as Text);
    starts.push(text.length);
    text += (n as Text).data;
  }
  let at = text.indexOf(words);
  for (let i = 0; i < nth; i++) at = text.indexOf(words, at + 1);
  const find = (offset: number) => {
    let i = nodes.length - 1;
    while (i > 0 && starts[i]! > offset) i--;
    return { node: nodes[i]!, offset: offset - starts[i]! };
  };
  const a = find(at);
  const b = find(at + words.length);
  const r = document.createRange();
  r.setStart(a.node, a.offset);
  r.setEnd(b.node, b.offset);
  return r;
}

const saved = (root: Element, words: string, nth = 0) => {
  const d = describeRange(root, select(root, words, nth))!;
  return { id: `${words}#${nth}`, quote: d.quote, selectors: d.selectors };
};

describe('anchoring (Hypothesis-style: position, then quote with context)', () => {
  it('describes a selection that crosses an element: quote, position, context and an element path', () => {
    const root = rootOf(CHAPTER);
    const d = describeRange(root, select(root, 'the nineteenth century that'))!;
    expect(d.quote).toBe('the nineteenth century that');
    const quote = d.selectors.find((s) => s.type === 'TextQuoteSelector')!;
    expect(quote).toMatchObject({ exact: 'the nineteenth century that' });
    expect(quote.type === 'TextQuoteSelector' && quote.prefix.endsWith('in the last years of ')).toBe(true);
    const pos = d.selectors.find((s) => s.type === 'TextPositionSelector')!;
    expect(root.textContent.slice(pos.type === 'TextPositionSelector' ? pos.start : 0, pos.type === 'TextPositionSelector' ? pos.end : 0)).toBe('the nineteenth century that');
    expect(d.ranges[0]!.start).toBe('/p[1]');
  });

  it('finds the words again where they were, and after edits before, inside the paragraph and after them', () => {
    const root = rootOf(CHAPTER);
    const a = saved(root, 'I scarcely need remind the reader');
    expect(anchorAll(root, [a]).anchored[0]!.range.toString()).toBe('I scarcely need remind the reader');
    // Edited before (a new paragraph), inside the paragraph (words added before and after), and after.
    const edited = rootOf(
      CHAPTER.replace('<h1>Chapter I</h1>', '<h1>Chapter I</h1><p>A new opening line by the editor.</p>')
        .replace('The planet Mars, I', 'The red planet Mars, I')
        .replace('about the sun.', 'about the sun, as everyone knows.</p><p>An added paragraph.'),
    );
    const { anchored, orphans } = anchorAll(edited, [a]);
    expect(orphans).toEqual([]);
    expect(anchored[0]!.range.toString()).toBe('I scarcely need remind the reader');
  });

  it('tells repeated words apart by their context, and lists words that are gone as orphans', () => {
    const root = rootOf(CHAPTER);
    // 'planet Mars' twice; the second one saved. A long sentence comes in between: its position no longer fits,
    // the first occurrence is now the nearer one, and only the context tells them apart.
    const second = saved(root, 'planet Mars', 1);
    const edited = rootOf(CHAPTER.replace('about the sun.', `about the sun. ${'An inserted sentence that moves the rest of the chapter along. '.repeat(4)}`));
    const found = anchorAll(edited, [second]).anchored[0]!;
    expect(found.range.toString()).toBe('planet Mars');
    expect(found.range.startContainer.textContent).toContain('Mars again');
    const gone = rootOf(CHAPTER.replace('I scarcely need remind the reader', 'as you know'));
    const lost = saved(rootOf(CHAPTER), 'I scarcely need remind the reader');
    expect(anchorAll(gone, [lost]).orphans.map((o) => o.id)).toEqual([lost.id]);
  });
});

describe("a note's markdown", () => {
  it('renders strong, emphasis, code, lists and safe links as elements', () => {
    const { container } = render(<NoteMarkdown text={'**Bold** and *em* and `code <b>`\n\n- one\n- two\n\n[site](https://example.com) [here](/library/)'} />);
    expect(container.querySelector('strong')!.textContent).toBe('Bold');
    expect(container.querySelector('em')!.textContent).toBe('em');
    expect(container.querySelector('code')!.textContent).toBe('code <b>');
    expect([...container.querySelectorAll('li')].map((l) => l.textContent)).toEqual(['one', 'two']);
    expect([...container.querySelectorAll('a')].map((a) => a.getAttribute('href'))).toEqual(['https://example.com', '/library/']);
  });

  it('keeps parentheses inside an address, and a link it will not follow as it was written', () => {
    const { container } = render(<NoteMarkdown text={'[wiki](https://en.wikipedia.org/wiki/Fork_(software)) then [click](javascript:alert(1)) end'} />);
    expect([...container.querySelectorAll('a')].map((a) => a.getAttribute('href'))).toEqual(['https://en.wikipedia.org/wiki/Fork_(software)']);
    expect(container.textContent).toBe('wiki then [click](javascript:alert(1)) end');
  });

  it.each([
    '<script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '[click](javascript:alert(1))',
    '[x](//evil.example/)',
    '![pic](https://tracker.example/p.gif)',
    '<a href="javascript:alert(1)">x</a>',
    '[x](data:text/html,<script>alert(1)</script>)',
  ])('keeps %j as text: no element but paragraphs, no unsafe link, no image', (note) => {
    const { container } = render(<NoteMarkdown text={note} />);
    expect(container.querySelectorAll('script, img, iframe, [onerror], [style]')).toHaveLength(0);
    for (const a of container.querySelectorAll('a')) expect(a.getAttribute('href')).toMatch(/^(https?:|\/[^/])/);
    expect(container.textContent.length).toBeGreaterThan(0);
  });
});

describe('the store token (reader.md §4, §9)', () => {
  const token = (issuedAt: Date, ttl: number) =>
    `e30.${btoa(JSON.stringify({ consumerKey: 'lectern', userId: 'u', issuedAt: issuedAt.toISOString(), ttl })).replace(/=+$/, '')}.sig`;

  it('reads complete claims only', () => {
    expect(tokenClaims(token(new Date(), 60))).toMatchObject({ consumerKey: 'lectern', ttl: 60 });
    expect(tokenClaims(`e30.${btoa(JSON.stringify({ userId: 'u' }))}.x`)).toBeNull();
    expect(tokenClaims('not a token')).toBeNull();
  });

  it('reuses a token until 2 s before it expires, and asks again no sooner than 10 s after a failure', async () => {
    vi.useFakeTimers();
    try {
      let now = Date.parse('2026-11-26T10:00:00Z');
      const fetchToken = vi.fn(async () => token(new Date(now), 60));
      const keeper = new TokenKeeper(fetchToken, () => now);
      await keeper.get();
      await keeper.get();
      expect(fetchToken).toHaveBeenCalledTimes(1);
      now += 60_000 - ANNOTATION_TIMING.authRefreshBeforeExpiryMs + 1;
      await keeper.get();
      expect(fetchToken).toHaveBeenCalledTimes(2);

      const failing = vi.fn(async () => {
        throw new Error('down');
      });
      const broken = new TokenKeeper(failing, () => now);
      await expect(broken.get()).rejects.toThrow('down');
      now += ANNOTATION_TIMING.authRetryMs - 1;
      await expect(broken.get()).rejects.toThrow('down');
      expect(failing).toHaveBeenCalledTimes(1);
      now += 2;
      await expect(broken.get()).rejects.toThrow('down');
      expect(failing).toHaveBeenCalledTimes(2);
      keeper.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('a token that could not be had says "Couldn\'t get auth token:" and why, not a store notice', async () => {
    const failed = (fetchToken: () => Promise<string>) => new TokenKeeper(fetchToken).get().catch((e: unknown) => e);
    const refused = await failed(async () => {
      throw new ApiError(503, 'busy', {}, '/auth/token', 'Service Unavailable');
    });
    expect(failureNotice(refused, 'read')).toBe("Couldn't get auth token: 503 Service Unavailable");
    const unreachable = await failed(async () => {
      throw new ApiError(0, 'offline');
    });
    expect(failureNotice(unreachable, 'create')).toBe("Couldn't get auth token: the server could not be reached");
    // a token without its claims is invalid (§5): a token failure too
    expect(failureNotice(await failed(async () => 'e30.e30.sig'), 'read')).toBe("Couldn't get auth token: The store token has incomplete claims.");
    // a store call's own failure keeps its §8 notice
    expect(failureNotice(new ApiError(500, 'x'), 'read')).toBe('Sorry something went wrong with the annotation store');
  });
});

describe('a browser that cannot annotate (reader.md §8 "Unsupported browser")', () => {
  const CARET = ['caretPositionFromPoint', 'caretRangeFromPoint'] as const;
  const proto = Document.prototype as unknown as Record<string, unknown>;
  const kept = Object.fromEntries(CARET.map((k) => [k, Object.getOwnPropertyDescriptor(proto, k)]));
  afterEach(() => {
    for (const k of CARET) {
      delete proto[k];
      const descriptor = kept[k];
      if (descriptor) Object.defineProperty(proto, k, descriptor);
    }
    vi.unstubAllGlobals();
  });

  const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={new QueryClient()}>{children}</QueryClientProvider>;
  const mount = () =>
    renderHook(() => useChapterAnnotations({ bookId: 'b1', titleSafe: 'worlds', href: 'ch1.xhtml', surface: null, enabled: true, prefetch: true }), { wrapper });

  it('is told "Sorry your current browser does not support the Annotator", and nothing is asked of the store', () => {
    for (const k of CARET) delete proto[k];
    const calls = stubFetch(() => json(200, {}));
    expect(annotatorSupported()).toBe(false);
    const { result } = mount();
    expect(result.current.notice).toBe('Sorry your current browser does not support the Annotator');
    expect(calls).toEqual([]);
  });

  it('a browser that finds the text under a tap is not told, and asks for its token', async () => {
    proto.caretRangeFromPoint = () => null;
    const calls = stubFetch(() => json(500, { detail: 'boom' }));
    expect(annotatorSupported()).toBe(true);
    const { result } = mount();
    await vi.waitFor(() => expect(calls.some((c) => c.url.includes('/auth/token'))).toBe(true));
    expect(result.current.notice).toBeNull();
  });
});
