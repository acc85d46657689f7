/**
 * The operators' console (docs/decisions.md "The operators' console, web side") in jsdom: who gets in, the import
 * list's bars through a (fake) XMLHttpRequest's upload events up to the server's report, the charts' drawn values, and
 * a title saved over someone else's edit. The server side is tested for real in packages/server/test and
 * e2e/admin-console.e2e.ts.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, within } from '@testing-library/react';
import type { AccountProfile, AdminTitleDetail } from '@lectern/core';
import { CONSOLE_MESSAGES } from '@lectern/core';
import type { ReactNode } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createApiClient } from '../src/api/client.ts';
import AdminArea from '../src/features/admin/AdminArea.tsx';
import { DayBars, niceMax } from '../src/features/admin/Chart.tsx';
import { IMPORT_KINDS, kindOf } from '../src/features/admin/importKinds.ts';
import { ImportPage } from '../src/features/admin/ImportPage.tsx';
import { mergeFields, TitlePage } from '../src/features/admin/TitlesPage.tsx';
import { SellingPage } from '../src/features/admin/SellingPage.tsx';
import { DashboardPage } from '../src/features/admin/DashboardPage.tsx';
import { AuditPage, detailLine } from '../src/features/admin/AuditPage.tsx';
import { PeoplePage } from '../src/features/admin/PeoplePage.tsx';
import { EngagingPage } from '../src/features/admin/EngagingPage.tsx';
import { flush, json, stubFetch } from './helpers.tsx';
import { profile } from './fixtures.ts';

const withRoles = (roles: AccountProfile['account']['roles']): AccountProfile => ({ ...profile, account: { ...profile.account, roles } });

function renderConsole(who: AccountProfile, path = '/admin/') {
  document.cookie = 'logged_in=1; path=/';
  document.cookie = 'csrftoken=tok; path=/';
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  client.setQueryData(['profile'], who);
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="admin/*" element={<AdminArea />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

/** An XMLHttpRequest that sends nothing: the test moves its upload along and answers it. */
class FakeXhr {
  static last: FakeXhr[] = [];
  upload: { onprogress: ((e: { loaded: number; total: number; lengthComputable: boolean }) => void) | null; onload: (() => void) | null } = { onprogress: null, onload: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  withCredentials = false;
  status = 0;
  statusText = '';
  responseText = '';
  method = '';
  url = '';
  headers: Record<string, string> = {};
  body: FormData | null = null;
  constructor() {
    FakeXhr.last.push(this);
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(k: string, v: string) {
    this.headers[k] = v;
  }
  send(body: FormData) {
    this.body = body;
  }
  abort() {
    this.onabort?.();
  }
  progress(loaded: number, total: number) {
    act(() => this.upload.onprogress?.({ loaded, total, lengthComputable: true }));
  }
  async answer(status: number, body: unknown) {
    act(() => this.upload.onload?.());
    this.status = status;
    this.responseText = JSON.stringify(body);
    this.onload?.();
    await flush();
  }
}

beforeEach(() => {
  FakeXhr.last = [];
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
});
afterEach(() => vi.unstubAllGlobals());

describe('who gets into the console', () => {
  it('a reader is told why not, with no console navigation', () => {
    stubFetch(() => json(200, {}));
    renderConsole(withRoles([]));
    expect(screen.getByRole('heading', { name: CONSOLE_MESSAGES.refusedTitle })).toBeTruthy();
    expect(screen.getByText(CONSOLE_MESSAGES.refused)).toBeTruthy();
    expect(screen.queryByRole('navigation', { name: CONSOLE_MESSAGES.navLabel })).toBeNull();
  });

  it('a content creator sees the content parts only, and lands on Import', async () => {
    stubFetch(() => json(200, {}));
    renderConsole(withRoles(['content-creator']));
    const nav = screen.getByRole('navigation', { name: CONSOLE_MESSAGES.navLabel });
    expect(within(nav).getAllByRole('link').map((a) => a.textContent)).toEqual(['Import', 'Titles']);
    await flush();
    expect(screen.getByRole('heading', { name: 'Import' })).toBeTruthy();
  });

  it('an admin sees every section, the current one marked', async () => {
    stubFetch(() => json(200, { results: [] }));
    renderConsole(withRoles(['admin']), '/admin/selling/');
    const nav = screen.getByRole('navigation', { name: CONSOLE_MESSAGES.navLabel });
    expect(within(nav).getAllByRole('link').map((a) => a.textContent)).toEqual(['Dashboard', 'Import', 'Titles', 'People', 'Selling', 'Invoices', 'Teams', 'Engaging', 'Health', 'Audit log']);
    expect(within(nav).getByRole('link', { name: 'Selling' }).getAttribute('aria-current')).toBe('page');
    await flush();
  });
});

describe('import kinds', () => {
  it('one list: a kind is found by its extension, case aside; what is not listed is not taken', () => {
    expect(kindOf('Moby.EPUB')?.kind).toBe('epub');
    expect(kindOf('course/01-intro.mp4')?.kind).toBe('video');
    expect(kindOf('notes.docx')).toBeNull();
    expect(new Set(IMPORT_KINDS.flatMap((k) => k.extensions)).size).toBe(IMPORT_KINDS.flatMap((k) => k.extensions).length);
  });
});

function renderImport() {
  document.cookie = 'csrftoken=tok; path=/';
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <ImportPage />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const file = (name: string, size: number) => new File([new Uint8Array(size)], name);
const rowOf = (name: string) => screen.getByRole('listitem', { name });

describe('the import list', () => {
  it('shows each file through upload, parsing and its answer: one at a time, refusals with their reason', async () => {
    stubFetch(() => json(200, {})); // the schemas module loads alongside
    renderImport();
    const input = screen.getByTestId('import-files');
    fireEvent.change(input, { target: { files: [file('one.epub', 1000), file('two.pdf', 2000), file('notes.docx', 10)] } });
    await flush();
    // not a kind the library takes: refused at once, never sent
    expect(within(rowOf('notes.docx')).getByText(CONSOLE_MESSAGES.unknownKind('notes.docx'))).toBeTruthy();
    expect(FakeXhr.last).toHaveLength(1);
    const [first] = FakeXhr.last;
    expect(first!.method).toBe('POST');
    expect(first!.url).toBe('/api/v1/admin/import/');
    expect(first!.headers['x-csrftoken']).toBe('tok');
    expect((first!.body!.get('file') as File).name).toBe('one.epub');
    expect(rowOf('two.pdf').getAttribute('data-phase')).toBe('waiting');

    first!.progress(400, 1200);
    const bar = within(rowOf('one.epub')).getByRole('progressbar');
    expect(bar.getAttribute('value')).toBe('40');
    expect(rowOf('one.epub').getAttribute('data-phase')).toBe('uploading');
    act(() => first!.upload.onload?.());
    expect(rowOf('one.epub').getAttribute('data-phase')).toBe('processing');
    expect(within(rowOf('one.epub')).getByText(CONSOLE_MESSAGES.phase.processing)).toBeTruthy();

    await first!.answer(201, { imported: [{ book_id: 'b1', title: 'One', chapters: 3, warnings: ['Skipped a broken image.'] }], failed: [] });
    expect(within(rowOf('one.epub')).getByText(CONSOLE_MESSAGES.importedAs('One', 3))).toBeTruthy();
    expect(within(rowOf('one.epub')).getByText('Skipped a broken image.')).toBeTruthy();

    // the next file goes once the first is answered
    expect(FakeXhr.last).toHaveLength(2);
    const second = FakeXhr.last[1]!;
    second.progress(2100, 2100);
    await second.answer(400, { detail: 'two.pdf: Not a PDF.', errors: { file: ['two.pdf: Not a PDF.'] }, imported: [], failed: [{ file: 'two.pdf', reason: 'Not a PDF.' }] });
    expect(rowOf('two.pdf').getAttribute('data-phase')).toBe('refused');
    expect(within(rowOf('two.pdf')).getByText('Not a PDF.')).toBeTruthy();
  });

  it('a folder goes in one request, its files named with the folder, their bars filled in order', async () => {
    stubFetch(() => json(200, {}));
    renderImport();
    const a = file('01-intro.mp4', 100);
    const b = file('02-next.mp4', 300);
    Object.defineProperty(a, 'webkitRelativePath', { value: 'course/01-intro.mp4' });
    Object.defineProperty(b, 'webkitRelativePath', { value: 'course/02-next.mp4' });
    fireEvent.change(screen.getByTestId('import-files'), { target: { files: [a, b] } });
    await flush();
    expect(FakeXhr.last).toHaveLength(1);
    expect((FakeXhr.last[0]!.body!.getAll('file') as File[]).map((f) => f.name)).toEqual(['course/01-intro.mp4', 'course/02-next.mp4']);
    FakeXhr.last[0]!.progress(250, 400);
    expect(within(rowOf('course/01-intro.mp4')).getByRole('progressbar').getAttribute('value')).toBe('100');
    expect(within(rowOf('course/02-next.mp4')).getByRole('progressbar').getAttribute('value')).toBe('50');
    await FakeXhr.last[0]!.answer(201, { imported: [{ book_id: 'c1', title: 'Course', chapters: 2, warnings: [] }], failed: [] });
    expect(within(rowOf('course/02-next.mp4')).getByText(CONSOLE_MESSAGES.importedAs('Course', 2))).toBeTruthy();
  });

  const row = (book_id: string, title: string, content_format: string) => ({ book_id, title, authors: [], content_format, language: null, publisher: null, created_at: '2026-11-01T00:00:00Z', retired_at: null, editors_pick: false, version: 1, cover_url: null });

  it('a new edition of a book: found by its words, its one file sent with ?replace=<book id>', async () => {
    const calls = stubFetch((call) => (call.url.startsWith('/api/v1/admin/titles/?') ? json(200, { results: [row('moby', 'Moby-Dick', 'book')], next_cursor: null }) : json(404, { detail: 'Not found' })));
    renderImport();
    // nothing chosen yet: no file to give
    expect(screen.queryByRole('button', { name: 'Import the new edition' })).toBeNull();
    fireEvent.change(screen.getByLabelText(CONSOLE_MESSAGES.editionFind), { target: { value: 'moby' } });
    fireEvent.click(screen.getByRole('button', { name: 'Find' }));
    await flush();
    expect(calls.at(-1)?.url).toContain('q=moby');
    fireEvent.click(await screen.findByRole('button', { name: CONSOLE_MESSAGES.editionChoose('Moby-Dick') }));
    const input = screen.getByLabelText<HTMLInputElement>(CONSOLE_MESSAGES.editionFile);
    expect([input.multiple, input.accept]).toEqual([false, '.epub,.pdf']);
    fireEvent.click(screen.getByRole('button', { name: 'Import the new edition' }));
    expect(screen.getByText(CONSOLE_MESSAGES.editionChooseFile)).toBeTruthy();
    fireEvent.change(input, { target: { files: [file('moby-2.epub', 50)] } });
    fireEvent.click(screen.getByRole('button', { name: 'Import the new edition' }));
    await flush();
    expect(FakeXhr.last[0]!.url).toBe('/api/v1/admin/import/?replace=moby');
  });

  it('a new edition of a video course (given by its page as ?replace=): its parts in one request, as one folder', async () => {
    stubFetch((call) =>
      call.url.startsWith('/api/v1/admin/titles/course-1/')
        ? json(200, { ...row('course-1', 'Knots at Sea', 'video'), description: null, allow_scripts: false, scripts_available: false, topics: [], chapters: 2, url: '/library/book/course-1/', stats: { readers: 0, minutes_read: 0, completed_readers: 0, completion: 0 } })
        : json(404, { detail: 'Not found' }),
    );
    document.cookie = 'csrftoken=tok; path=/';
    render(
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <MemoryRouter initialEntries={['/admin/import/?replace=course-1']}>
          <ImportPage />
        </MemoryRouter>
      </QueryClientProvider>,
    );
    await flush();
    await screen.findByText(CONSOLE_MESSAGES.editionOf('Knots at Sea'));
    const input = screen.getByLabelText<HTMLInputElement>(CONSOLE_MESSAGES.editionFiles);
    expect(input.multiple).toBe(true);
    expect(input.accept.split(',')).toEqual(expect.arrayContaining(['.mp4', '.vtt', '.json']));
    expect(input.accept.split(',')).not.toContain('.epub');
    fireEvent.change(input, { target: { files: [file('01-bowline.mp4', 80), file('02-hitch.mp4', 90), file('01-bowline.vtt', 10)] } });
    fireEvent.click(screen.getByRole('button', { name: 'Import the new edition' }));
    await flush();
    expect(FakeXhr.last).toHaveLength(1);
    expect(FakeXhr.last[0]!.url).toBe('/api/v1/admin/import/?replace=course-1');
    expect(FakeXhr.last[0]!.body!.getAll('file').map((f) => (f as File).name)).toEqual(['edition/01-bowline.mp4', 'edition/02-hitch.mp4', 'edition/01-bowline.vtt']);
  });
});

describe('the client upload', () => {
  it('turns an error answer that is not a report into an ApiError naming the field', async () => {
    stubFetch(() => json(200, {}));
    const client = createApiClient({ csrfToken: () => 'tok' });
    const { importReportSchema } = await import('@lectern/core');
    const sent = client.upload('/api/v1/admin/import/', new FormData(), importReportSchema, { answerOn: [400] });
    await flush();
    const refused = expect(sent).rejects.toMatchObject({ status: 400, errors: { file: ['Attach at least one EPUB or PDF file.'] } });
    await FakeXhr.last[0]!.answer(400, { detail: 'Attach at least one EPUB or PDF file.', errors: { file: ['Attach at least one EPUB or PDF file.'] } });
    await refused;
  });
});

describe('charts', () => {
  it('bars are drawn to scale against a round top, each with its value', () => {
    expect(niceMax(0)).toBe(1);
    expect(niceMax(7)).toBe(10);
    expect(niceMax(130)).toBe(200);
    const { container } = render(
      <DayBars
        title="Minutes read per day"
        unit="minutes"
        points={[
          { key: '2026-11-01', label: 'Nov 1', value: 50 },
          { key: '2026-11-02', label: 'Nov 2', value: 100 },
          { key: '2026-11-03', label: 'Nov 3', value: 0 },
        ]}
      />,
    );
    const bars = [...container.querySelectorAll('rect')];
    expect(bars.map((b) => b.getAttribute('data-value'))).toEqual(['50', '100', '0']);
    const heights = bars.map((b) => Number(b.getAttribute('height')));
    expect(heights[1]).toBeCloseTo(heights[0]! * 2);
    expect(heights[2]).toBe(0);
    expect(screen.getByRole('img').getAttribute('aria-label')).toContain('150 minutes in all');
  });
});

describe('a title edited by two operators', () => {
  const detail = (over: Partial<AdminTitleDetail> = {}): AdminTitleDetail => ({
    book_id: 'b1',
    title: 'Moby-Dick',
    authors: ['Herman Melville'],
    content_format: 'book',
    language: 'en',
    publisher: null,
    created_at: '2026-11-01T00:00:00Z',
    retired_at: null,
    editors_pick: false,
    version: 3,
    cover_url: null,
    description: null,
    allow_scripts: false,
    scripts_available: false,
    topics: [],
    chapters: 2,
    url: '/library/book/b1/',
    stats: { readers: 0, minutes_read: 0, completed_readers: 0, completion: 0 },
    ...over,
  });

  const renderTitle = () => {
    document.cookie = 'csrftoken=tok; path=/';
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <MemoryRouter initialEntries={['/admin/titles/b1/']}>
          <Routes>
            <Route path="admin/titles/:bookId" element={<TitlePage />} />
          </Routes>
        </MemoryRouter>
      </QueryClientProvider>,
    );
    return client;
  };
  const value = (label: string) => screen.getByLabelText<HTMLInputElement>(label, { selector: 'input,textarea' }).value;

  it('sends the version it opened; a 409 names who, keeps what was typed over theirs, and offers theirs', async () => {
    let served = detail();
    const calls = stubFetch((call) => {
      if (call.method === 'PATCH') {
        // the first save is stale; the second is sent with the version merged in
        if ((call.body as { version: number }).version === 3) return json(409, { detail: 'Someone else (bo@example.com) saved this title after you opened it.', current: served });
        return json(200, (served = detail({ version: 5, title: 'Moby-Dick (annotated)', publisher: 'Harper' })));
      }
      if (call.url.startsWith('/api/v1/admin/titles/b1/readers/')) return json(200, { results: [], next_cursor: null });
      if (call.url.startsWith('/api/v1/admin/titles/b1/')) return json(200, served);
      return json(404, { detail: 'Not found' });
    });
    renderTitle();
    await flush();
    const field = await screen.findByLabelText('Title');
    fireEvent.change(field, { target: { value: 'Moby-Dick (annotated)' } });
    // the other operator changed the title and the publisher
    served = detail({ version: 4, title: 'Moby Dick; or, The Whale', publisher: 'Harper' });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await flush();
    const patch = calls.find((c) => c.method === 'PATCH');
    expect(patch?.body).toMatchObject({ version: 3, title: 'Moby-Dick (annotated)' });
    await screen.findByText(CONSOLE_MESSAGES.versionConflict);
    expect(screen.getByText('Someone else (bo@example.com) saved this title after you opened it.')).toBeTruthy();
    // mine stays where I typed; theirs where I did not; the clash is named with both values
    await flush();
    expect(value('Title')).toBe('Moby-Dick (annotated)');
    expect(value('Publisher')).toBe('Harper');
    const clashes = screen.getByRole('list', { name: CONSOLE_MESSAGES.clashesLabel });
    expect(within(clashes).getByRole('listitem').textContent).toBe(CONSOLE_MESSAGES.clash('Title', '“Moby-Dick (annotated)”', '“Moby Dick; or, The Whale”'));
    // saving again sends the version merged in, with both changes
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await flush();
    expect(calls.filter((c) => c.method === 'PATCH').at(-1)?.body).toMatchObject({ version: 4, title: 'Moby-Dick (annotated)', publisher: 'Harper' });
    await screen.findByText(CONSOLE_MESSAGES.saved);
    expect(screen.queryByRole('list', { name: CONSOLE_MESSAGES.clashesLabel })).toBeNull();
  });

  it('a refetch does not drop what is being typed; Reload theirs does, when asked', async () => {
    let served = detail();
    stubFetch((call) => {
      if (call.url.startsWith('/api/v1/admin/titles/b1/readers/')) return json(200, { results: [], next_cursor: null });
      if (call.url.startsWith('/api/v1/admin/titles/b1/')) return json(200, served);
      return json(404, { detail: 'Not found' });
    });
    const client = renderTitle();
    await flush();
    fireEvent.change(await screen.findByLabelText('Description'), { target: { value: 'A whale of a book.' } });
    served = detail({ version: 4, description: 'Call me Ishmael.', language: 'en-GB' });
    await act(() => client.invalidateQueries({ queryKey: ['admin', 'title', 'b1'] }));
    await vi.waitFor(() => expect(value('Language')).toBe('en-GB'));
    expect(value('Description')).toBe('A whale of a book.');
    await screen.findByText(CONSOLE_MESSAGES.versionConflict);
    fireEvent.click(screen.getByRole('button', { name: CONSOLE_MESSAGES.takeTheirs }));
    expect(value('Description')).toBe('Call me Ishmael.');
    expect(screen.queryByText(CONSOLE_MESSAGES.versionConflict)).toBeNull();
  });
  it('uploads a cover with PUT, shows the server’s reason for a refused one; scripts only with a scripted origin', async () => {
    let served = detail();
    const calls = stubFetch((call) => {
      if (call.url.startsWith('/api/v1/admin/titles/b1/scripts/')) return json(200, (served = detail({ version: 5, allow_scripts: (call.body as { allow_scripts: boolean }).allow_scripts, scripts_available: true })));
      if (call.url.startsWith('/api/v1/admin/titles/b1/readers/')) return json(200, { results: [], next_cursor: null });
      if (call.url.startsWith('/api/v1/admin/titles/b1/')) return json(200, served);
      return json(404, { detail: 'Not found' });
    });
    renderTitle();
    await flush();
    await screen.findByRole('heading', { name: 'Cover' });
    // no scripted origin: nothing offered
    expect(screen.queryByRole('heading', { name: 'Scripts' })).toBeNull();
    const upload = screen.getByRole<HTMLButtonElement>('button', { name: CONSOLE_MESSAGES.coverUpload });
    expect(upload.disabled).toBe(true);
    const file = new File([new Uint8Array([0x3c, 0x73, 0x76, 0x67])], 'cover.svg', { type: 'image/svg+xml' });
    fireEvent.change(screen.getByLabelText(CONSOLE_MESSAGES.coverChoose), { target: { files: [file] } });
    fireEvent.click(upload);
    await flush();
    const xhr = FakeXhr.last.at(-1)!;
    expect([xhr.method, xhr.url]).toEqual(['PUT', '/api/v1/admin/titles/b1/cover/']);
    expect((xhr.body!.get('file') as File).name).toBe('cover.svg');
    await xhr.answer(400, { detail: 'A cover must be a JPEG, PNG or WebP image.', errors: { file: ['A cover must be a JPEG, PNG or WebP image.'] } });
    await screen.findByText('A cover must be a JPEG, PNG or WebP image.');
    fireEvent.click(upload);
    await flush();
    await FakeXhr.last.at(-1)!.answer(200, (served = detail({ version: 4, cover_url: '/api/v1/book/b1/cover?v=4', scripts_available: true })));
    await screen.findByText(CONSOLE_MESSAGES.coverSaved);
    expect(screen.getByRole('img', { hidden: true }).getAttribute('src')).toBe('/api/v1/book/b1/cover?v=4');
    // the answer says the server has a scripted origin: the flag is offered, and sent
    fireEvent.click(await screen.findByRole('checkbox', { name: CONSOLE_MESSAGES.scriptsLabel }));
    await flush();
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ allow_scripts: true });
    await screen.findByText(CONSOLE_MESSAGES.scriptsOn);
    expect(screen.getByRole<HTMLInputElement>('checkbox', { name: CONSOLE_MESSAGES.scriptsLabel }).checked).toBe(true);
  });

  it('suggests topics and publishers from the server, completing the last topic typed', async () => {
    const calls = stubFetch((call) => {
      if (call.url.startsWith('/api/v1/admin/names/')) return json(200, { results: call.url.includes('kind=topic') ? ['Sailing', 'Salt marshes'] : ['Saltwater Press'] });
      if (call.url.startsWith('/api/v1/admin/titles/b1/readers/')) return json(200, { results: [], next_cursor: null });
      if (call.url.startsWith('/api/v1/admin/titles/b1/')) return json(200, detail());
      return json(404, { detail: 'Not found' });
    });
    renderTitle();
    await flush();
    const topics = await screen.findByLabelText('Topics (comma-separated)');
    expect(topics.getAttribute('list')).toBe('admin-topic-names');
    fireEvent.change(topics, { target: { value: 'Sailing, sa' } });
    await flush();
    expect(calls.some((c) => c.url.startsWith('/api/v1/admin/names/') && c.url.includes('kind=topic') && c.url.includes('q=sa'))).toBe(true);
    await vi.waitFor(() => expect([...document.querySelectorAll('#admin-topic-names option')].map((o) => o.getAttribute('value'))).toEqual(['Sailing, Salt marshes']));
    fireEvent.change(screen.getByLabelText('Publisher'), { target: { value: 'salt' } });
    await vi.waitFor(() => expect([...document.querySelectorAll('#admin-publisher-names option')].map((o) => o.getAttribute('value'))).toEqual(['Saltwater Press']));
  });
});

describe('merging a newer version into the title form', () => {
  const f = { title: 'A', authors: 'X', description: '', language: 'en', publisher: '', topics: '', editors_pick: false };
  it('takes theirs where untouched, keeps mine where typed, names a field both changed differently', () => {
    expect(mergeFields(f, { ...f, title: 'B' }, { ...f, language: 'fr' })).toEqual({ form: { ...f, title: 'B', language: 'fr' }, clashes: [] });
    expect(mergeFields(f, { ...f, title: 'B' }, { ...f, title: 'C', editors_pick: true })).toEqual({ form: { ...f, title: 'B', editors_pick: true }, clashes: ['title'] });
    // the same change on both sides is no clash
    expect(mergeFields(f, { ...f, title: 'B' }, { ...f, title: 'B' }).clashes).toEqual([]);
  });
});

function renderPage(ui: ReactNode) {
  document.cookie = 'csrftoken=tok; path=/';
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter>{ui}</MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('selling', () => {
  it('sends an amount off in cents, and shows the server’s reason under its field', async () => {
    const calls = stubFetch((call) => {
      if (call.url.startsWith('/api/v2/plans/')) return json(200, { results: [] });
      if (call.method === 'POST') return json(400, { detail: 'Invalid request.', errors: { code: ['a code is letters, digits, - and _'] } });
      return json(200, { results: [] });
    });
    renderPage(<SellingPage />);
    await flush();
    const form = screen.getByRole('form', { name: 'New promotion code' });
    fireEvent.change(within(form).getByLabelText('Code'), { target: { value: 'spring sale' } });
    fireEvent.change(within(form).getByLabelText('Discount'), { target: { value: 'fixed' } });
    fireEvent.change(within(form).getByLabelText('Amount'), { target: { value: '5.50' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Create code' }));
    await flush();
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ code: 'spring sale', kind: 'fixed', amount: 550, plan: null, expires_at: null, usage_limit: null, is_sale: false });
    expect(within(form).getByLabelText('Code').getAttribute('aria-invalid')).toBe('true');
    expect(within(form).getByText('a code is letters, digits, - and _')).toBeTruthy();
  });
});

describe('the dashboard', () => {
  it('draws each day of the answer, and the searches that found nothing', async () => {
    const day = (d: string, imports: number) => ({ day: d, active_readers: 1, minutes_read: 12.4, new_accounts: 0, trial_conversions: 0, imports, import_failures: 0 });
    stubFetch((call) =>
      call.url.startsWith('/api/v1/admin/dashboard/')
        ? json(200, {
            from: '2026-11-27',
            to: '2026-11-28',
            days: [day('2026-11-27', 3), day('2026-11-28', 6)],
            top_titles: [],
            top_topics: [],
            empty_searches: [{ query: 'kubernetes', count: 4 }],
            import_failures: [],
          })
        : json(404, { detail: 'Not found' }),
    );
    const { container } = renderPage(<DashboardPage />);
    await flush();
    await screen.findByText('Files imported per day', { exact: false });
    const bars = [...container.querySelectorAll('figure[data-chart="Files imported per day"] rect')];
    expect(bars.map((b) => [b.getAttribute('data-key'), b.getAttribute('data-value')])).toEqual([
      ['2026-11-27', '3'],
      ['2026-11-28', '6'],
    ]);
    expect(Number(bars[1]!.getAttribute('height'))).toBeCloseTo(2 * Number(bars[0]!.getAttribute('height')));
    expect(container.querySelector('figure[data-chart="Searches that found nothing"] li[data-key="kubernetes"]')?.getAttribute('data-value')).toBe('4');
  });
});

describe('a console list (AdminListPage)', () => {
  const person = (n: number) => ({ user_id: `u${n}`, email: `p${n}@example.org`, username: `p${n}`, status: 'subscriber', effective_status: 'subscriber', roles: [], trial_ends_at: null, created_at: '2026-11-01T00:00:00Z' });
  it('searches on submit only, pages by cursor both ways, and says when nothing matched', async () => {
    const calls = stubFetch((call) => {
      const url = new URL(call.url, 'http://x');
      if (url.searchParams.get('q') === 'nobody') return json(200, { results: [], next_cursor: null });
      return url.searchParams.get('cursor') === 'c2' ? json(200, { results: [person(3)], next_cursor: null }) : json(200, { results: [person(1), person(2)], next_cursor: 'c2' });
    });
    renderPage(<PeoplePage />);
    await flush();
    const list = await screen.findByRole('region', { name: 'People list' });
    expect(within(list).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Email', 'Status', 'Roles', 'Trial ends', 'Joined']);
    expect(within(list).getAllByRole('link').map((a) => a.textContent)).toEqual(['p1@example.org', 'p2@example.org']);
    const pager = screen.getByRole('navigation', { name: 'People pages' });
    expect(within(pager).getByRole<HTMLButtonElement>('button', { name: 'Previous' }).disabled).toBe(true);
    fireEvent.click(within(pager).getByRole('button', { name: 'Next' }));
    await flush();
    expect(calls.at(-1)?.url).toContain('cursor=c2');
    await screen.findByRole('link', { name: 'p3@example.org' });
    expect(within(screen.getByRole('region', { name: 'People list' })).getAllByRole('link').map((a) => a.textContent)).toEqual(['p3@example.org']);
    expect(within(pager).getByText('Page 2')).toBeTruthy();
    fireEvent.click(within(pager).getByRole('button', { name: 'Previous' }));
    await screen.findByRole('link', { name: 'p1@example.org' });
    expect(within(screen.getByRole('region', { name: 'People list' })).getAllByRole('link').map((a) => a.textContent)).toEqual(['p1@example.org', 'p2@example.org']);
    // typing alone fetches nothing; the search starts again at page 1
    const before = calls.length;
    fireEvent.change(screen.getByLabelText('Search by email or name'), { target: { value: 'nobody' } });
    await flush();
    expect(calls.length).toBe(before);
    fireEvent.click(screen.getByRole('button', { name: 'Search' }));
    await flush();
    expect(calls.at(-1)?.url).toContain('q=nobody');
    expect(calls.at(-1)?.url).not.toContain('cursor');
    await screen.findByText(CONSOLE_MESSAGES.noResults);
    expect(screen.queryByRole('region', { name: 'People list' })).toBeNull();
    expect(screen.queryByRole('navigation', { name: 'People pages' })).toBeNull();
  });

  it('shows the server’s reason with Retry when the list fails, and the list once it loads', async () => {
    let fail = true;
    stubFetch(() => (fail ? json(503, { detail: 'The database is busy.' }) : json(200, { results: [{ id: '7', actor: null, at: '2026-11-28T10:00:00Z', actor_label: 'ops@example.org', action: 'title.edit', target_kind: 'title', target_id: 'b1', detail: {}, ip: null }], next_cursor: null })));
    renderPage(<AuditPage />);
    expect((await screen.findByRole('alert')).textContent).toContain('The database is busy.');
    fail = false;
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    await flush();
    const list = await screen.findByRole('region', { name: 'Audit entries' });
    expect(within(list).getAllByRole('cell').map((c) => c.textContent)).toEqual([expect.any(String), 'ops@example.org', 'title.edit', 'title b1', 'command line']);
  });
});

describe('the audit log', () => {
  it('writes an edit as before → after, also inside `changed`', () => {
    expect(detailLine({ title: 'Moby', changed: { title: ['Moby', 'Moby-Dick'], description: [null, 'A whale.'] } })).toBe(
      'title: Moby; title: “Moby” → “Moby-Dick”; description: null → “A whale.”',
    );
    expect(detailLine({ roles: [[], ['admin']] })).toBe('roles: [] → ["admin"]');
  });
});

describe("editors' picks", () => {
  it('finds a title by its words, picks it after the others, and lists the picks by title', async () => {
    let picks = ['b1'];
    const calls = stubFetch((call) => {
      if (call.url.startsWith('/api/v2/admin/editors-picks/')) {
        if (call.method === 'PUT') picks = (call.body as { book_ids: string[] }).book_ids;
        return json(200, { book_ids: picks });
      }
      if (call.url.startsWith('/api/v1/admin/titles/?')) {
        return json(200, { results: [{ book_id: 'b2', title: 'Quiet Engines', authors: ['Ada'], content_format: 'book', language: 'en', publisher: null, created_at: '2026-11-01T00:00:00Z', retired_at: null, editors_pick: false, version: 1, cover_url: null }], next_cursor: null });
      }
      const m = /\/api\/v1\/admin\/titles\/(b\d)\/$/.exec(call.url);
      if (m) return json(200, { book_id: m[1], title: m[1] === 'b1' ? 'Harbour Lights' : 'Quiet Engines', authors: [], content_format: 'book', language: null, publisher: null, created_at: '2026-11-01T00:00:00Z', retired_at: null, editors_pick: true, version: 1, cover_url: null, description: null, allow_scripts: false, scripts_available: false, topics: [], chapters: 1, url: '/library/book/x/', stats: { readers: 0, minutes_read: 0, completed_readers: 0, completion: 0 } });
      return json(200, { results: [] });
    });
    renderPage(<EngagingPage />);
    await flush();
    const list = await screen.findByRole('list', { name: 'Picks' });
    await within(list).findByText('Harbour Lights');
    fireEvent.change(screen.getByLabelText('Find a title to pick'), { target: { value: 'quiet' } });
    fireEvent.click(screen.getByRole('button', { name: 'Find' }));
    await flush();
    expect(calls.some((c) => c.url.startsWith('/api/v1/admin/titles/?') && c.url.includes('q=quiet'))).toBe(true);
    fireEvent.click(await screen.findByRole('button', { name: 'Pick Quiet Engines' }));
    await flush();
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ book_ids: ['b1', 'b2'] });
    await within(screen.getByRole('list', { name: 'Picks' })).findByText('Quiet Engines');
  });
});
