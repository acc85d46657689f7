/**
 * Import (docs/decisions.md "The operators' console, web side"): drop files or a folder, or choose them; each file's
 * bar through its upload, then parsing and indexing until the server answers, then the title it became with its
 * warnings, or the reason it was refused. A new edition of any title, found by its words: a book's one file or a media
 * title's files.
 */
import { useQuery } from '@tanstack/react-query';
import { adminTopicNamesSchema, CONSOLE_MESSAGES as M, formatLabel, type AdminTitleRow } from '@lectern/core';
import { useRef, useState, type DragEvent, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { adminApi, adminKeys } from '../../api/admin.ts';
import { Button } from '../../components/Button.tsx';
import { TextField } from '../../components/TextField.tsx';
import { appPaths } from '../../shared/links.ts';
import { filesOfDrop, filesOfList } from './dropFiles.ts';
import { IMPORT_ACCEPT, IMPORT_KIND_SUMMARY, IMPORT_KINDS, kindOf } from './importKinds.ts';
import { type Dropped, type QueuedFile, useImportQueue } from './useImportQueue.ts';
import './ImportPage.css';

const bookPage = (bookId: string) => `${appPaths.library}book/${encodeURIComponent(bookId)}/`;

export function ImportPage() {
  const queue = useImportQueue();
  const [over, setOver] = useState(false);
  const [topicsText, setTopicsText] = useState('');
  const [topicErrors, setTopicErrors] = useState<string[]>([]);
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const files = queue.files;

  /**
   * Queues files with the topic field's topics (the command line's --topic; the server checks them by the same rule,
   * core adminTopicNamesSchema); with a topic the rule refuses, nothing is queued and the field says why.
   */
  const add = (dropped: readonly Dropped[], opts: { replace?: string } = {}): boolean => {
    const topics = adminTopicNamesSchema.safeParse(topicsText.split(',').map((x) => x.trim()).filter(Boolean));
    setTopicErrors(topics.success ? [] : [topics.error.issues[0]!.message]);
    if (!topics.success) return false;
    queue.add(dropped, { ...opts, topics: topics.data });
    return true;
  };

  const onDrop = async (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    add(await filesOfDrop(e.dataTransfer));
  };

  return (
    <div className="admin-import">
      <div className="admin-head">
        <h1 className="page-heading">Import</h1>
      </div>
      <TextField
        className="admin-import__topics"
        label={M.importTopics}
        hint={M.importTopicsHint}
        name="topics"
        value={topicsText}
        onChange={(e) => setTopicsText(e.target.value)}
        errors={topicErrors}
        autoComplete="off"
      />
      <section
        className={['admin-drop', over ? 'admin-drop--over' : ''].filter(Boolean).join(' ')}
        aria-labelledby="admin-drop-title"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => void onDrop(e)}
      >
        <h2 id="admin-drop-title" className="admin-drop__title">
          {M.dropHere}
        </h2>
        <p className="admin-drop__kinds">{M.dropKinds(IMPORT_KIND_SUMMARY)}</p>
        <div className="admin-drop__buttons">
          <Button onClick={() => filesInput.current?.click()}>{M.chooseFiles}</Button>
          <Button variant="secondary" onClick={() => folderInput.current?.click()}>
            {M.chooseFolder}
          </Button>
        </div>
        <input
          ref={filesInput}
          className="visually-hidden"
          type="file"
          multiple
          accept={IMPORT_ACCEPT}
          tabIndex={-1}
          aria-label={M.chooseFiles}
          data-testid="import-files"
          onChange={(e) => {
            add(filesOfList(e.currentTarget.files));
            e.currentTarget.value = '';
          }}
        />
        <input
          ref={folderInput}
          className="visually-hidden"
          type="file"
          multiple
          tabIndex={-1}
          aria-label={M.chooseFolder}
          {...{ webkitdirectory: '' }}
          onChange={(e) => {
            add(filesOfList(e.currentTarget.files));
            e.currentTarget.value = '';
          }}
        />
      </section>

      {files.length ? (
        <section className="admin-panel" aria-labelledby="admin-import-files">
          <h2 id="admin-import-files">Files</h2>
          <ul className="admin-import__files">
            {files.map((f) => (
              <FileRow key={f.id} file={f} />
            ))}
          </ul>
        </section>
      ) : null}

      <NewEdition onSubmit={(bookId, edition) => add(edition, { replace: bookId })} />
    </div>
  );
}

const mb = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`);
const tone = (f: QueuedFile) => (f.phase === 'imported' ? 'ok' : f.phase === 'refused' ? 'bad' : f.phase === 'waiting' ? '' : 'warn');

function FileRow({ file: f }: { file: QueuedFile }) {
  const percent = f.size ? Math.round((f.sent / f.size) * 100) : 0;
  const kind = kindOf(f.name);
  return (
    <li className="admin-import__file" data-phase={f.phase} aria-label={f.name}>
      <div className="admin-import__line">
        <span className="admin-import__name">{f.name}</span>
        <span className="admin-muted">
          {kind?.label ?? '?'} · {mb(f.size)}
        </span>
        <span className={['admin-badge', tone(f) ? `admin-badge--${tone(f)}` : ''].join(' ')}>{M.phase[f.phase]}</span>
      </div>
      {f.phase === 'uploading' || f.phase === 'waiting' ? (
        <progress className="admin-import__bar" max={100} value={percent} aria-label={`${f.name}: ${M.phase.uploading}`} aria-valuetext={`${percent}%`} />
      ) : f.phase === 'processing' ? (
        <progress className="admin-import__bar" aria-label={`${f.name}: ${M.phase.processing}`} />
      ) : null}
      {f.phase === 'refused' && f.reason ? <p className="admin-error">{f.reason}</p> : null}
      {f.phase === 'imported' && f.result ? (
        <div className="admin-import__result">
          <p className="admin-ok">
            {M.importedAs(f.result.title, f.result.chapters)} <Link to={bookPage(f.result.book_id)}>Open the title page</Link>
          </p>
          {f.result.warnings.length ? (
            <ul className="admin-import__warnings" aria-label="Warnings">
              {f.result.warnings.map((w, i) => (
                <li key={i}>{w}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </li>
  );
}

const MEDIA_FORMATS: readonly string[] = ['video', 'audiobook'];
const BOOK_ACCEPT = '.epub,.pdf';
const MEDIA_ACCEPT = IMPORT_KINDS.filter((k) => k.kind !== 'epub' && k.kind !== 'pdf')
  .flatMap((k) => k.extensions.map((e) => `.${e}`))
  .join(',');

/**
 * A new edition of any title, books and media alike: the title found by its words or book id (or given by the
 * title's page as ?replace=), then its file (a book, a document) or its files (a video course's or audiobook's
 * parts, transcripts, manifest), sent in one request with ?replace=.
 */
function NewEdition({ onSubmit }: { onSubmit: (bookId: string, files: Dropped[]) => boolean }) {
  const [params] = useSearchParams();
  const given = params.get('replace') ?? '';
  const [typed, setTyped] = useState(given);
  const [q, setQ] = useState('');
  const [chosen, setChosen] = useState<AdminTitleRow | null>(null);
  const [files, setFiles] = useState<File[]>([]);
  const [errors, setErrors] = useState<{ book?: string[]; file?: string[] }>({});
  // the title the title's page sent us with, read once
  const fromPage = useQuery({ queryKey: adminKeys.title(given), queryFn: ({ signal }) => adminApi.title(given, signal), enabled: !!given && !chosen, retry: false });
  const target = chosen ?? (fromPage.data && fromPage.data.book_id === given ? fromPage.data : null);
  const found = useQuery({ queryKey: adminKeys.titles({ q, state: 'all', limit: 5 }), queryFn: ({ signal }) => adminApi.titles({ q, state: 'all', limit: 5 }, signal), enabled: !!q });
  const media = !!target && MEDIA_FORMATS.includes(target.content_format);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const next = { book: target ? undefined : [M.editionChooseTitle], file: files.length ? undefined : [media ? M.editionChooseFiles : M.editionChooseFile] };
    setErrors(next);
    if (next.book || next.file || !target) return;
    // loose parts go as one folder: a media title's new edition is one title's files (services/import.ts)
    if (!onSubmit(target.book_id, files.map((file) => ({ file, path: media && files.length > 1 ? `edition/${file.name}` : file.name })))) return;
    setFiles([]);
    (e.currentTarget as HTMLFormElement).reset();
  };
  return (
    <section className="admin-panel" aria-labelledby="admin-new-edition">
      <h2 id="admin-new-edition">{M.newEditionHeading}</h2>
      <p className="admin-hint">{M.newEditionHint}</p>
      <form
        className="admin-filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setQ(typed.trim());
        }}
      >
        <TextField label={M.editionFind} name="edition_q" type="search" value={typed} onChange={(e) => setTyped(e.target.value)} errors={errors.book} autoComplete="off" />
        <Button type="submit" variant="secondary">
          Find
        </Button>
      </form>
      {q && found.data ? (
        found.data.results.length ? (
          <ul className="admin-list" aria-label={M.editionMatches}>
            {found.data.results.map((t) => (
              <li key={t.book_id}>
                <span>
                  {t.title} <span className="admin-muted admin-small">{formatLabel(t.content_format).toLowerCase()} · {t.book_id}</span>
                </span>
                <Button variant="secondary" size="sm" aria-pressed={target?.book_id === t.book_id} onClick={() => setChosen(t)}>
                  {M.editionChoose(t.title)}
                </Button>
              </li>
            ))}
          </ul>
        ) : (
          <p className="admin-muted">{M.noResults}</p>
        )
      ) : null}
      {target ? (
        <form className="admin-form admin-space" onSubmit={submit} noValidate aria-label={M.editionOf(target.title)}>
          <p className="admin-form__wide admin-strong" aria-live="polite">
            {M.editionOf(target.title)} <span className="admin-muted admin-small">({formatLabel(target.content_format).toLowerCase()})</span>
          </p>
          <div className="field admin-form__wide">
            <label className="field__label" htmlFor="admin-edition-file">
              {media ? M.editionFiles : M.editionFile}
            </label>
            <input
              id="admin-edition-file"
              key={target.book_id}
              type="file"
              multiple={media}
              accept={media ? MEDIA_ACCEPT : BOOK_ACCEPT}
              onChange={(e) => setFiles([...(e.currentTarget.files ?? [])])}
              aria-invalid={errors.file ? true : undefined}
            />
            {errors.file ? <p className="admin-error">{errors.file.join(' ')}</p> : null}
          </div>
          <div className="admin-form__actions">
            <Button type="submit" variant="secondary">
              Import the new edition
            </Button>
          </div>
        </form>
      ) : null}
    </section>
  );
}
