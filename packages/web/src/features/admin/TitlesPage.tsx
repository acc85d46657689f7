/**
 * Titles (docs/decisions.md "The console's titles"): search and page the library (keyset paging, fast at 100,000
 * titles), and one title's page: edit its fields with the version it was opened at (a 409 says someone else saved
 * first, and shows theirs), editors' pick, chapters as sample or public, retire and bring back, its readers with
 * minutes and completion.
 */
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
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
import { CoverPanel, ScriptsPanel } from './TitleFiles.tsx';

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
  if (title.isPending) return <Spinner label="Loading…" />;
  if (title.isError) return <ErrorState message={isApiError(title.error) ? title.error.detail : M.loadFailed} onRetry={() => void title.refetch()} />;
  // one form per title: a newer version from the server is merged into it (TitleEditor), never starts it again
  return <TitleEditor key={bookId} title={title.data} />;
}

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** The editor's fields as typed. */
type Fields = { title: string; authors: string; description: string; language: string; publisher: string; topics: string; editors_pick: boolean };
const FIELD_LABELS: Record<keyof Fields, string> = { title: 'Title', authors: 'Authors', description: 'Description', language: 'Language', publisher: 'Publisher', topics: 'Topics', editors_pick: 'Editors’ pick' };

const fieldsOf = (t: AdminTitleDetail): Fields => ({
  title: t.title,
  authors: t.authors.join(', '),
  description: t.description ?? '',
  language: t.language ?? '',
  publisher: t.publisher ?? '',
  topics: t.topics.map((x) => x.name).join(', '),
  editors_pick: t.editors_pick,
});

/**
 * A newer version (`theirs`) over the form: a field the operator left as it was (`was`) takes theirs, one they
 * changed keeps theirs (`mine`); both changed differently is a clash, kept as mine and named to the operator.
 */
export function mergeFields(was: Fields, mine: Fields, theirs: Fields): { form: Fields; clashes: (keyof Fields)[] } {
  const form = { ...mine };
  const clashes: (keyof Fields)[] = [];
  for (const k of Object.keys(was) as (keyof Fields)[]) {
    if (mine[k] === was[k]) Object.assign(form, { [k]: theirs[k] });
    else if (theirs[k] !== was[k] && theirs[k] !== mine[k]) clashes.push(k);
  }
  return { form, clashes };
}

/** What the last save ended with. */
type TitleNotice = { tone: 'success' | 'alert'; text: string };

function TitleEditor({ title }: { title: AdminTitleDetail }) {
  const client = useQueryClient();
  const action = useAction();
  const life = useAction();
  const admin = accessOf(useSession().profile) === 'admin';
  const [notice, setNotice] = useState<TitleNotice | null>(null);
  // the version the form was built on: what a save sends, and what a newer version is merged against
  const [base, setBase] = useState(title);
  const [form, setForm] = useState(() => fieldsOf(title));
  /** fields both this operator and the newer version changed, each with their value */
  const [clashes, setClashes] = useState<{ field: keyof Fields; theirs: Fields[keyof Fields] }[]>([]);
  if (title.version !== base.version) {
    // a newer version arrived (a refetch, a retire, another operator's save): merged in while rendering
    const theirs = fieldsOf(title);
    const merged = mergeFields(fieldsOf(base), form, theirs);
    setBase(title);
    setForm(merged.form);
    setClashes([...clashes.filter((c) => !merged.clashes.includes(c.field)), ...merged.clashes.map((field) => ({ field, theirs: theirs[field] }))]);
  }
  const set = (k: keyof Fields) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  const put = (fresh: AdminTitleDetail) => {
    client.setQueryData(adminKeys.title(title.book_id), fresh);
    void client.invalidateQueries({ queryKey: ['admin', 'titles'] });
    // the catalog's copies of the title are stale now
    void client.invalidateQueries({ queryKey: ['book', title.book_id] });
    void client.invalidateQueries({ queryKey: ['books'] });
  };
  const takeTheirs = () => {
    setForm(fieldsOf(title));
    setClashes([]);
    setNotice(null);
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setNotice(null);
    await action.run(async () => {
      try {
        const saved = await adminApi.editTitle(title.book_id, base.version, {
          title: form.title,
          authors: list(form.authors),
          description: form.description || null,
          language: form.language.trim() || null,
          publisher: form.publisher.trim() || null,
          topics: list(form.topics),
          editors_pick: form.editors_pick,
        });
        // the form is what was saved: set here, so the new version is not merged as someone else's
        setBase(saved);
        setForm(fieldsOf(saved));
        setClashes([]);
        setNotice({ tone: 'success', text: M.saved });
        put(saved);
      } catch (err) {
        if (isApiError(err) && err.status === 409) {
          // the form keeps what was typed; theirs is read again and merged in, clashes named
          setNotice({ tone: 'alert', text: err.detail || M.versionConflict });
          void client.invalidateQueries({ queryKey: adminKeys.title(title.book_id) });
          return; // said in the notice above the form, not twice
        }
        throw err;
      }
    });
  };
  const shown = (v: Fields[keyof Fields]) => (typeof v === 'boolean' ? (v ? M.yes : M.no) : v ? `“${v}”` : M.emptyValue);
  return (
    <div>
      <div className="admin-head">
        <h1 className="page-heading">{title.title}</h1>
        <p>
          <Link to={`${appPaths.library}book/${encodeURIComponent(title.book_id)}/`}>Title page</Link> · <code>{title.book_id}</code> ·{' '}
          <Link to={`${consolePaths.section('import')}?replace=${encodeURIComponent(title.book_id)}`}>{M.newEditionLink}</Link>
        </p>
      </div>
      {notice?.tone === 'alert' || clashes.length ? (
        <Notice tone="alert" title={M.versionConflict} dismissible={false}>
          {notice?.tone === 'alert' ? <p>{notice.text}</p> : null}
          <p>{M.editsKept}</p>
          {clashes.length ? (
            <ul aria-label={M.clashesLabel}>
              {clashes.map((c) => (
                <li key={c.field}>{M.clash(FIELD_LABELS[c.field], shown(form[c.field]), shown(c.theirs))}</li>
              ))}
            </ul>
          ) : null}
          <div className="admin-form__actions">
            <Button variant="secondary" size="sm" onClick={takeTheirs}>
              {M.takeTheirs}
            </Button>
          </div>
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
          <TextField label="Publisher" name="publisher" value={form.publisher} onChange={set('publisher')} errors={action.errors.publisher} list="admin-publisher-names" autoComplete="off" />
          <NameSuggestions id="admin-publisher-names" kind="publisher" value={form.publisher} />
          <TextField label="Topics (comma-separated)" name="topics" value={form.topics} onChange={set('topics')} errors={action.errors.topics} list="admin-topic-names" autoComplete="off" />
          <NameSuggestions id="admin-topic-names" kind="topic" value={form.topics} />
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
      <CoverPanel title={title} onSaved={put} />
      <ScriptsPanel title={title} onSaved={put} />
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

/**
 * The names a field may take, as the browser's own suggestions (a datalist): topics or publishers that a title in
 * the catalog carries (the server leaves out those only retired titles carry). For the comma-separated topics, the
 * last entry is what is completed; each option is the whole field with it completed.
 */
function NameSuggestions({ id, kind, value }: { id: string; kind: 'topic' | 'publisher'; value: string }) {
  const comma = kind === 'topic' ? value.lastIndexOf(',') : -1;
  const head = comma >= 0 ? `${value.slice(0, comma + 1).trimEnd()} ` : '';
  const q = value.slice(comma + 1).trim();
  const names = useQuery({ queryKey: adminKeys.names({ kind, q }), queryFn: ({ signal }) => adminApi.names({ kind, q }, signal), enabled: q.length > 0, placeholderData: keepPreviousData, staleTime: 60_000 });
  const taken = new Set(list(value.slice(0, comma + 1)).map((n) => n.toLowerCase()));
  return (
    <datalist id={id}>
      {q
        ? (names.data?.results ?? [])
            .filter((n) => !taken.has(n.toLowerCase()))
            .map((n) => <option key={n} value={`${head}${n}`} />)
        : null}
    </datalist>
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
