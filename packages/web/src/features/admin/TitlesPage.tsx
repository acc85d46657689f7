/**
 * Titles (issue 23): search and page the library (keyset paging, fast at 100,000 titles), and one title's page:
 * edit its fields with the version it was opened at (a 409 says someone else saved first, and shows theirs),
 * editors' pick, chapters as sample or public, retire and bring back, its readers with minutes and completion.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ADMIN_TITLE_STATES, CONSOLE_MESSAGES as M, type AdminTitleDetail } from '@lectern/core';
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { adminApi, adminKeys } from '../../api/admin.ts';
import { api, isApiError } from '../../api/client.ts';
import { Button } from '../../components/Button.tsx';
import { ErrorState } from '../../components/ErrorState.tsx';
import { Notice } from '../../components/Notice.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { TextArea } from '../../components/TextArea.tsx';
import { TextField } from '../../components/TextField.tsx';
import { appPaths } from '../../shared/links.ts';
import { accessOf, consolePaths } from './access.ts';
import { useSession } from '../../shared/useSession.ts';
import { formatDate, formatDateTime } from './format.ts';
import { AdminListPage, PagedTable } from './AdminListPage.tsx';
import { ActionStatus, useAction } from './useAction.tsx';
import { usePaged } from './usePaged.ts';
import { SelectField } from './SelectField.tsx';
import { TitleImportWarnings } from './TitleImportWarnings.tsx';

export function TitlesPage() {
  const [typed, setTyped] = useState('');
  const [q, setQ] = useState('');
  const [state, setState] = useState<(typeof ADMIN_TITLE_STATES)[number]>('active');
  const paged = usePaged(adminKeys.titles, { q: q || undefined, state }, (query, signal) => adminApi.titles(query, signal));
  return (
    <AdminListPage
      title="Titles"
      onSearch={() => setQ(typed.trim())}
      filters={
        <>
          <TextField label="Search titles, authors or a book id" name="q" type="search" value={typed} onChange={(e) => setTyped(e.target.value)} />
          <SelectField label="Show" value={state} onChange={(e) => setState(e.target.value as typeof state)}>
            <option value="active">In the catalog</option>
            <option value="retired">Retired</option>
            <option value="all">All</option>
          </SelectField>
        </>
      }
      paged={paged}
      label="Titles list"
      pagerLabel="Titles pages"
      rowKey={(t) => t.book_id}
      columns={[
        {
          header: 'Title',
          cell: (t) => (
            <>
              <Link to={consolePaths.title(t.book_id)}>{t.title}</Link>
              {t.editors_pick ? <span className="admin-badge admin-badge--ok"> pick</span> : null}
            </>
          ),
        },
        { header: 'Authors', cell: (t) => t.authors.join(', ') },
        { header: 'Format', cell: (t) => t.content_format },
        { header: 'Added', cell: (t) => formatDate(t.created_at) },
        { header: 'State', cell: (t) => (t.retired_at ? <span className="admin-badge admin-badge--warn">retired</span> : <span className="admin-badge admin-badge--ok">in catalog</span>) },
      ]}
    />
  );
}

export function TitlePage() {
  const bookId = useParams().bookId ?? '';
  const title = useQuery({ queryKey: adminKeys.title(bookId), queryFn: ({ signal }) => adminApi.title(bookId, signal) });
  // kept above the form, which starts again (a new key) from the version the server has now
  const [notice, setNotice] = useState<TitleNotice | null>(null);
  if (title.isPending) return <Spinner label="Loading…" />;
  if (title.isError) return <ErrorState message={isApiError(title.error) ? title.error.detail : M.loadFailed} onRetry={() => void title.refetch()} />;
  // a new version from the server (saved here or elsewhere) starts the form again from it
  return <TitleEditor key={title.data.version} title={title.data} notice={notice} onNotice={setNotice} />;
}

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** What the last save ended with: it outlives the form, which starts again from each new version. */
type TitleNotice = { tone: 'success' | 'alert'; text: string };

function TitleEditor({ title, notice, onNotice }: { title: AdminTitleDetail; notice: TitleNotice | null; onNotice: (notice: TitleNotice | null) => void }) {
  const client = useQueryClient();
  const action = useAction();
  const life = useAction();
  const admin = accessOf(useSession().profile) === 'admin';
  const [form, setForm] = useState({
    title: title.title,
    authors: title.authors.join(', '),
    description: title.description ?? '',
    language: title.language ?? '',
    publisher: title.publisher ?? '',
    topics: title.topics.map((t) => t.name).join(', '),
    editors_pick: title.editors_pick,
  });
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  const put = (fresh: AdminTitleDetail) => {
    client.setQueryData(adminKeys.title(title.book_id), fresh);
    void client.invalidateQueries({ queryKey: ['admin', 'titles'] });
    // the catalog's copies of the title are stale now
    void client.invalidateQueries({ queryKey: ['book', title.book_id] });
    void client.invalidateQueries({ queryKey: ['books'] });
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    onNotice(null);
    await action.run(async () => {
      try {
        const saved = await adminApi.editTitle(title.book_id, title.version, {
          title: form.title,
          authors: list(form.authors),
          description: form.description || null,
          language: form.language.trim() || null,
          publisher: form.publisher.trim() || null,
          topics: list(form.topics),
          editors_pick: form.editors_pick,
        });
        onNotice({ tone: 'success', text: M.saved });
        put(saved);
      } catch (err) {
        if (isApiError(err) && err.status === 409) {
          // theirs is shown (the title is read again); the form starts from it
          onNotice({ tone: 'alert', text: err.detail || M.versionConflict });
          void client.invalidateQueries({ queryKey: adminKeys.title(title.book_id) });
        }
        throw err;
      }
    });
  };
  return (
    <div>
      <div className="admin-head">
        <h1 className="page-heading">{title.title}</h1>
        <p>
          <Link to={`${appPaths.library}book/${encodeURIComponent(title.book_id)}/`}>Title page</Link> · <code>{title.book_id}</code>
        </p>
      </div>
      {notice?.tone === 'alert' ? (
        <Notice tone="alert" title={M.versionConflict}>
          {notice.text}
        </Notice>
      ) : notice ? (
        <Notice tone="success">{notice.text}</Notice>
      ) : null}
      {title.retired_at ? (
        <Notice tone="info" dismissible={false}>
          {M.retired}
        </Notice>
      ) : null}
      <dl className="admin-facts">
        <div>
          <dt>Readers</dt>
          <dd>{title.stats.readers}</dd>
        </div>
        <div>
          <dt>Minutes read</dt>
          <dd>{Math.round(title.stats.minutes_read)}</dd>
        </div>
        <div>
          <dt>Finished</dt>
          <dd>{title.stats.completed_readers}</dd>
        </div>
        <div>
          <dt>Completion</dt>
          <dd>{Math.round(title.stats.completion * 100)}%</dd>
        </div>
        <div>
          <dt>Chapters</dt>
          <dd>{title.chapters}</dd>
        </div>
      </dl>
      <section className="admin-panel" aria-labelledby="admin-title-edit">
        <h2 id="admin-title-edit">Details</h2>
        <form className="admin-form" onSubmit={(e) => void submit(e)} noValidate>
          <TextField className="admin-form__wide" label="Title" name="title" value={form.title} onChange={set('title')} errors={action.errors.title} />
          <TextField label="Authors (comma-separated)" name="authors" value={form.authors} onChange={set('authors')} errors={action.errors.authors} />
          <TextField label="Language" name="language" value={form.language} onChange={set('language')} errors={action.errors.language} />
          <TextField label="Publisher" name="publisher" value={form.publisher} onChange={set('publisher')} errors={action.errors.publisher} />
          <TextField label="Topics (comma-separated)" name="topics" value={form.topics} onChange={set('topics')} errors={action.errors.topics} />
          <TextArea className="admin-form__wide" label="Description" name="description" rows={4} value={form.description} onChange={set('description')} errors={action.errors.description} />
          <label className="admin-check">
            <input type="checkbox" checked={form.editors_pick} onChange={(e) => setForm({ ...form, editors_pick: e.target.checked })} /> Editors’ pick
          </label>
          <div className="admin-form__actions">
            <Button type="submit" busy={action.busy}>
              Save
            </Button>
            <ActionStatus action={action} />
          </div>
        </form>
      </section>
      <Chapters bookId={title.book_id} />
      <section className="admin-panel" aria-labelledby="admin-title-life">
        <h2 id="admin-title-life">{title.retired_at ? 'Bring back' : 'Retire'}</h2>
        <p className="admin-hint">Retiring hides the title from the catalog; readers’ notes, positions and playlists are kept.</p>
        <Button
          variant={title.retired_at ? 'secondary' : 'danger'}
          busy={life.busy}
          onClick={() => void life.run(async () => put(await (title.retired_at ? adminApi.restoreTitle(title.book_id) : adminApi.retireTitle(title.book_id))))}
        >
          {title.retired_at ? 'Bring back to the catalog' : 'Retire this title'}
        </Button>
        <ActionStatus action={life} />
      </section>
      <TitleImportWarnings bookId={title.book_id} />
      {/* who read it is the people part: operators only (core/admin.ts CONTENT_ROUTES) */}
      {admin ? <Readers bookId={title.book_id} /> : null}
    </div>
  );
}

function Chapters({ bookId }: { bookId: string }) {
  const client = useQueryClient();
  const book = useQuery({ queryKey: ['book', bookId], queryFn: ({ signal }) => api.getBook(bookId, signal), retry: false });
  const action = useAction();
  if (!book.data) return null;
  const flag = (fullPath: string, flags: { as_sample?: boolean; is_public?: boolean }) =>
    void action.run(() => adminApi.setChapterFlags(bookId, fullPath, flags)).then(() => client.invalidateQueries({ queryKey: ['book', bookId] }));
  return (
    <section className="admin-panel" aria-labelledby="admin-title-chapters">
      <h2 id="admin-title-chapters">Chapters</h2>
      <p className="admin-hint">A sample chapter is open to every signed-in reader; a public one to visitors too.</p>
      <div className="admin-table-wrap" tabIndex={0} role="region" aria-label="Chapters list">
        <table className="admin-table">
          <thead>
            <tr>
              <th>Chapter</th>
              <th>Sample</th>
              <th>Public</th>
            </tr>
          </thead>
          <tbody>
            {book.data.chapters.map((c) => (
              <tr key={c.full_path}>
                <td>{c.label || c.full_path}</td>
                <td>
                  <input type="checkbox" aria-label={`${c.label || c.full_path}: sample`} checked={c.as_sample} onChange={(e) => flag(c.full_path, { as_sample: e.target.checked })} />
                </td>
                <td>
                  <input type="checkbox" aria-label={`${c.label || c.full_path}: public`} checked={c.is_public} onChange={(e) => flag(c.full_path, { is_public: e.target.checked })} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ActionStatus action={action} />
    </section>
  );
}

function Readers({ bookId }: { bookId: string }) {
  const paged = usePaged(
    (q) => [...adminKeys.titleReaders(bookId), q],
    {},
    (q, signal) => adminApi.titleReaders(bookId, q.cursor, signal),
  );
  return (
    <section className="admin-panel" aria-labelledby="admin-title-readers">
      <h2 id="admin-title-readers">Readers</h2>
      <PagedTable
        paged={paged}
        label="Readers list"
        pagerLabel="Readers pages"
        empty="Nobody has read it yet."
        rowKey={(r) => r.user_id}
        columns={[
          { header: 'Reader', cell: (r) => <Link to={consolePaths.user(r.user_id)}>{r.email}</Link> },
          { header: 'Minutes', className: 'num', cell: (r) => Math.round(r.minutes_read) },
          { header: 'Completion', className: 'num', cell: (r) => `${Math.round(r.completion * 100)}%` },
          { header: 'Last read', cell: (r) => formatDateTime(r.last_read_at) },
        ]}
      />
    </section>
  );
}
