/**
 * Search inside the book: the marks put into a chapter's DOM and the passage found by its first words
 * (engine/textMarks.ts), snippets rendered as text and <mark> (never HTML), and the panel with its hook against
 * a server answering as core/search.ts says: pages of 5, the two messages, the selection POST and the cookies.
 */
import { IN_BOOK_SEARCH_MESSAGES, locatorSchema, SEARCH_QUERY_COOKIE, SEARCH_SNIPPET_COOKIE, searchPaths, type InBookSearchResult } from '@lectern/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { useState } from 'react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readCookie } from '../src/api/cookies.ts';
import { clearMarks, findPhrase, hitLocator, hitPassage, markAndFind, markStem, markWords, MAX_MARKS, SEARCH_MARK_CLASS, SEARCH_MARK_CURRENT_CLASS } from '../src/features/reader/engine/textMarks.ts';
import { SearchPanel } from '../src/features/reader/SearchPanel.tsx';
import { Snippet } from '../src/shared/Snippet.tsx';
import { useInBookSearch } from '../src/features/reader/useInBookSearch.ts';
import { chosenSnippet } from '../src/shared/searchChoice.ts';
import { searchTargetOf } from '../src/features/reader/useSearchJump.ts';
import { flush, json, stubFetch, type Call } from './helpers.tsx';

function chapter(html: string): HTMLElement {
  document.body.innerHTML = `<div id="lectern-root">${html}</div>`;
  return document.getElementById('lectern-root')!;
}

describe('marks in the chapter', () => {
  it('wraps every word starting with a query word, across elements, and changes no text', () => {
    const root = chapter('<p>The <em>Wha</em>les of the sea.</p><p>A whale; WHALES and awhale.</p>');
    const before = root.textContent;
    const marks = markWords(root, ['whale']);
    expect(root.textContent).toBe(before);
    // "Wha|les" (two pieces: the word runs across <em>), "whale", "WHALES"; never the inside of "awhale".
    expect(marks.map((m) => m.textContent)).toEqual(['Wha', 'les', 'whale', 'WHALES']);
    expect(root.querySelectorAll(`mark.${SEARCH_MARK_CLASS}`)).toHaveLength(4);
    clearMarks(root);
    expect(root.querySelectorAll('mark')).toHaveLength(0);
    expect(root.innerHTML).toBe('<p>The <em>Wha</em>les of the sea.</p><p>A whale; WHALES and awhale.</p>');
  });

  it('ignores accents and case, and marks at most MAX_MARKS', () => {
    const root = chapter(`<p>Le café et le CAFE.</p><p>${'sea '.repeat(MAX_MARKS + 50)}</p>`);
    expect(markWords(root, ['cafe']).map((m) => m.textContent)).toEqual(['café', 'CAFE']);
    expect(markWords(root, ['sea'])).toHaveLength(MAX_MARKS);
  });

  it('folds as the server folds (core foldText): ligatures, half-width kana and voicing marks', () => {
    // Before, the reader folded each code unit with NFD: ﬁ and ｶﾞ stayed as they were and だ lost its voicing.
    const root = chapter('<p>A ﬁne ﬁsh, ｶﾞラス and ガラス; だ and た.</p>');
    const before = root.textContent;
    expect(markWords(root, ['fish']).map((m) => m.textContent)).toEqual(['ﬁsh']);
    expect(markWords(root, ['fine']).map((m) => m.textContent)).toEqual(['ﬁne']);
    expect(markWords(root, ['ガラス']).map((m) => m.textContent)).toEqual(['ｶﾞラス', 'ガラス']);
    expect(markWords(root, ['だ']).map((m) => m.textContent)).toEqual(['だ']);
    expect(markWords(root, ['た']).map((m) => m.textContent)).toEqual(['た']);
    expect(root.textContent).toBe(before);
    expect(findPhrase('A ﬁne ﬁsh, ｶﾞラス', 'fish, ガラス')).toEqual({ start: 6, end: 15 });
  });

  it('marks the common English forms of a query word, as the engine stemming finds them', () => {
    expect(markStem('Martians')).toBe('martian');
    expect(markStem('running')).toBe('runn');
    expect(markStem('stories')).toBe('stori');
    expect(markStem('sea')).toBe('sea');
    const root = chapter('<p>A Martian, two martians; the marshes.</p>');
    expect(markWords(root, ['Martians']).map((m) => m.textContent)).toEqual(['Martian', 'martians']);
  });

  it('marks a Chinese or Japanese word where its characters stand, inside a run with no spaces', () => {
    const root = chapter('<p>吾輩は<ruby>猫<rt>ねこ</rt></ruby>である。名前はまだ無い。猫と名前。</p>');
    expect(markWords(root, ['猫']).map((m) => m.textContent)).toEqual(['猫', '猫']);
    expect(markWords(root, ['名前', 'である']).map((m) => m.textContent)).toEqual(['である', '名前', '名前']);
    expect(markWords(root, ['前名'])).toHaveLength(0);
    // ruby's reading is not part of the text: a word runs on across its base (one mark per piece)
    expect(markWords(root, ['猫である']).map((m) => m.textContent)).toEqual(['猫', 'である']);
    expect(root.querySelector('rt')!.textContent).toBe('ねこ');
  });

  it('finds a phrase whatever the whitespace between blocks and words', () => {
    // (Two paragraphs' text with no space between them, two spaces, a newline.)
    expect(findPhrase('end of it.Call me  Ishmael.\nSome years', 'it. Call me Ishmael. Some')).toEqual({ start: 7, end: 32 });
    expect(findPhrase('abc', 'zzz')).toBeNull();
  });

  it('jumps to the passage by its first 8 words, then 4, marking the words there as current', () => {
    const root = chapter(
      '<p>Whales are big.</p><p>Later on, the great whale rose out of the sea and</p><p>looked at the ship for a long while.</p>',
    );
    // 8 words that run across two paragraphs (the DOM has no space between them).
    const { range, marks } = markAndFind(root, ['of the sea and looked at the ship', 'of the sea and'], ['whale', 'sea']);
    expect(range).not.toBeNull();
    const at = range!.startContainer.textContent!.slice(range!.startOffset);
    expect(at.startsWith('of the ')).toBe(true);
    // The words of the passage are "current"; the same word elsewhere is marked, not current.
    // (Only the phrase's own extent here: `extent` widens it to the snippet's length.)
    const current = marks.filter((m) => m.classList.contains(SEARCH_MARK_CURRENT_CLASS)).map((m) => m.textContent);
    expect(current).toEqual(['sea']);
    expect(marks.map((m) => m.textContent)).toEqual(['Whales', 'whale', 'sea']);

    // The 8 words are not there (the snippet was cut differently), the first 4 are.
    const second = markAndFind(root, ['looked at the ship for a short time', 'looked at the ship'], ['ship']);
    expect(second.range!.startContainer.textContent!.slice(second.range!.startOffset)).toMatch(/^looked at/);

    // Neither: the first marked word.
    const third = markAndFind(root, ['nothing like this'], ['great']);
    // A text position (a range at an element boundary has no box to scroll to).
    expect(third.range!.startContainer.nodeType).toBe(Node.TEXT_NODE);
    expect(third.range!.startContainer.textContent).toBe('great');
    expect(third.marks[0]!.classList.contains(SEARCH_MARK_CURRENT_CLASS)).toBe(true);
    // Nothing to find at all.
    expect(markAndFind(root, [], ['zebra']).range).toBeNull();
  });
});

describe('snippets', () => {
  it('renders text and <mark> only: a book tag in a snippet stays text', () => {
    const { container } = render(
      <p>
        <Snippet html={'&lt;img src=x onerror=alert(1)&gt; the <mark>whale</mark> &amp; <b>sea</b>'} />
      </p>,
    );
    expect(container.querySelectorAll('img, b')).toHaveLength(0);
    expect(container.querySelector('mark')?.textContent).toBe('whale');
    expect(container.textContent).toBe('<img src=x onerror=alert(1)> the whale & <b>sea</b>');
  });
});

const result = (i: number, over: Partial<InBookSearchResult> = {}): InBookSearchResult => ({
  archive_id: 'book-1',
  full_path: `ch${i}.xhtml`,
  web_url: `/library/view/moby/book-1/ch${i}.xhtml?q=whale`,
  highlighted_content: `… passage ${i} with the <mark>whale</mark> in it &amp; more …`,
  chapter_title: `Chapter ${i}`,
  minutes_required: 12.4,
  ...over,
});

function Harness({ go }: { go: (path: string) => void }) {
  const [open, setOpen] = useState(true);
  const search = useInBookSearch({ bookId: 'book-1', userId: 'u-1', sessionId: 's-1', contentType: 'book', open, go });
  return (
    <>
      <button type="button" onClick={() => setOpen((o) => !o)}>
        toggle
      </button>
      <SearchPanel open={open} search={search} onClose={() => setOpen(false)} />
    </>
  );
}

function renderPanel(go = vi.fn()) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <Harness go={go} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return go;
}

async function searchFor(text: string) {
  const field = screen.getByRole('searchbox', { name: 'Search this book' });
  fireEvent.change(field, { target: { value: text } });
  fireEvent.submit(field.closest('form')!);
  await waitFor(() => expect(document.querySelector('.reader-search__loading')).toBeNull());
}

describe('the search panel and its hook', () => {
  beforeEach(() => {
    document.cookie = 'csrftoken=tok; path=/';
    document.cookie = `${SEARCH_SNIPPET_COOKIE}=; Max-Age=0; path=/`;
    document.cookie = `${SEARCH_QUERY_COOKIE}=; Max-Age=0; path=/`;
  });
  afterEach(() => vi.unstubAllGlobals());

  it('pages through results 5 at a time, with the chapter, its minutes and the marked snippet', async () => {
    const all = Array.from({ length: 7 }, (_, i) => result(i + 1));
    const calls = stubFetch((call) => {
      const u = new URL(call.url, 'http://x');
      expect(u.pathname).toBe(searchPaths.inBook());
      const page = Number(u.searchParams.get('page'));
      expect(u.searchParams.get('identifier')).toBe('book-1');
      return json(200, { results: all.slice((page - 1) * 5, page * 5), total: 7, page });
    });
    renderPanel();
    await searchFor('whale');
    expect(calls[0]!.url).toContain('query=whale');
    let items = screen.getAllByRole('listitem');
    expect(items).toHaveLength(5);
    expect(items[0]!.textContent).toContain('Chapter 1');
    expect(items[0]!.textContent).toContain('12 min');
    expect(items[0]!.querySelector('mark')?.textContent).toBe('whale');
    expect(screen.getByRole('status').textContent).toContain('7 results, page 1 of 2');
    fireEvent.click(screen.getByRole('button', { name: /Next/ }));
    await waitFor(() => expect(screen.getAllByRole('listitem')).toHaveLength(2));
    items = screen.getAllByRole('listitem');
    expect(items.map((li) => li.querySelector('.reader-search__chapter-title')?.textContent)).toEqual(['Chapter 6', 'Chapter 7']);
    expect(screen.getByRole('button', { name: /Next/ })).toHaveProperty('disabled', true);
    expect(screen.getByRole('link', { name: 'Search the whole site' }).getAttribute('href')).toBe('/search/?q=whale');
  });

  it('says there are no results, and says so when the search fails', async () => {
    let fail = false;
    stubFetch(() => (fail ? json(500, { detail: 'boom' }) : json(200, { results: [], total: 0, page: 1 })));
    renderPanel();
    await searchFor('zebra "quagga"');
    expect(screen.getByText(IN_BOOK_SEARCH_MESSAGES.noResults('zebra "quagga"'))).toBeTruthy();
    fail = true;
    await searchFor('other');
    expect(screen.getByRole('alert').textContent).toBe('Something has gone wrong... please try again later.');
  });

  it('choosing a result posts the selection, keeps the snippet and query in cookies and goes to the hit', async () => {
    const posted: Call[] = [];
    stubFetch((call) => {
      if (call.method === 'POST') {
        posted.push(call);
        return json(201, {});
      }
      return json(200, { results: [result(1), result(2)], total: 2, page: 1 });
    });
    const go = renderPanel();
    await searchFor('whale');
    fireEvent.click(screen.getAllByRole('link')[1]!);
    await flush(40);
    expect(go).toHaveBeenCalledWith('/library/view/moby/book-1/ch2.xhtml?q=whale');
    expect(posted).toHaveLength(1);
    expect(posted[0]!.url).toBe(searchPaths.selection());
    expect(posted[0]!.body).toMatchObject({
      rank: 1,
      epubarchive_identifier: 'book-1',
      scope: 'book',
      selection_type: 'passage',
      url: '/library/view/moby/book-1/ch2.xhtml?q=whale',
      query: 'whale',
      session_id: 's-1',
      user_identifier: 'u-1',
    });
    expect(readCookie(SEARCH_QUERY_COOKIE)).toBe('whale');
    expect(chosenSnippet()).toEqual({ href: 'ch2.xhtml', text: '… passage 2 with the whale in it & more …', words: ['whale'] });
    // The reader, once there, looks for the snippet's first 8 words, then 4, and marks the query's words.
    // The hit is a Locator (its chapter, the passage its words), valid as core's schema has it.
    const target = searchTargetOf('k', 'ch2.xhtml', 'whale', null);
    expect(target).toEqual({
      id: 'k',
      hit: { href: 'ch2.xhtml', progression: 0, text: { highlight: '… passage 2 with the whale in it & more …' } },
      words: ['whale'],
      page: null,
    });
    expect(locatorSchema.parse(target.hit)).toEqual(target.hit);
    expect(hitPassage(target.hit)).toEqual({
      phrases: ['passage 2 with the whale in it &', 'passage 2 with the'],
      extent: '… passage 2 with the whale in it & more …'.length,
    });
    // Another chapter or another query: only the words.
    expect(searchTargetOf('k', 'ch3.xhtml', 'whale', 4)).toMatchObject({ hit: { href: 'ch3.xhtml', progression: 0 }, page: 4 });
    expect(hitPassage(searchTargetOf('k', 'ch3.xhtml', 'whale', 4).hit).phrases).toEqual([]);
    expect(searchTargetOf('k', 'ch2.xhtml', 'sea', null)).toMatchObject({ hit: { href: 'ch2.xhtml', progression: 0 }, words: ['sea'] });
    expect(searchTargetOf('k', 'ch2.xhtml', 'sea', null).hit.text).toBeUndefined();
  });

  it('a hit\'s passage longer than a Locator\'s highlight keeps its bounds and is found whole', () => {
    const passage = `${'word '.repeat(50)}end`;
    const hit = hitLocator('ch.xhtml', passage);
    expect(locatorSchema.safeParse(hit).success).toBe(true);
    expect(hitPassage(hit).extent).toBe(passage.length);
  });

  it('a selection POST that hangs is given up after 1500 ms and only logged; the reader goes on at once', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    let postStarted = 0;
    let postEnded = 0;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_url: string, init: RequestInit = {}) => {
        if (init.method !== 'POST') return json(200, { results: [result(1)], total: 1, page: 1 });
        // A server that never answers: only the caller's signal ends the request.
        postStarted = Date.now();
        return new Promise<Response>((_, reject) =>
          init.signal?.addEventListener('abort', () => {
            postEnded = Date.now();
            reject(init.signal!.reason);
          }),
        );
      }),
    );
    const go = renderPanel();
    await searchFor('whale');
    fireEvent.click(screen.getAllByRole('link')[0]!);
    expect(go).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(warn).toHaveBeenCalledWith('Search selection tracking failed:', 0, expect.any(String)), { timeout: 4000 });
    expect(postEnded - postStarted).toBeGreaterThanOrEqual(1400);
    expect(postEnded - postStarted).toBeLessThan(3000);
    warn.mockRestore();
  });

  it('Escape closes the panel and resets the search; the field keeps the day\'s query', async () => {
    stubFetch(() => json(200, { results: [result(1)], total: 1, page: 1 }));
    renderPanel();
    await searchFor('whale');
    expect(screen.getAllByRole('listitem')).toHaveLength(1);
    fireEvent.keyDown(screen.getByRole('searchbox'), { key: 'Escape' });
    await flush();
    expect(document.querySelector('.reader-search--open')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'toggle', hidden: true }));
    await flush();
    expect(document.querySelector('.reader-search--open')).not.toBeNull();
    expect(screen.queryAllByRole('listitem')).toHaveLength(0);
    expect(screen.getByRole('searchbox')).toHaveProperty('value', 'whale');
  });
});
