/**
 * Import (issue 23): drop files or a folder, or choose them; each file's bar through its upload, then parsing and
 * indexing until the server answers, then the title it became with its warnings, or the reason it was refused.
 * A new edition of a title: one file for a book id.
 */
import { CONSOLE_MESSAGES as M } from '@lectern/core';
import { useRef, useState, type DragEvent, type FormEvent } from 'react';
import { Link } from 'react-router';
import { Button } from '../../components/Button.tsx';
import { TextField } from '../../components/TextField.tsx';
import { appPaths } from '../../shared/links.ts';
import { filesOfDrop, filesOfList } from './dropFiles.ts';
import { IMPORT_ACCEPT, IMPORT_KIND_SUMMARY, kindOf } from './importKinds.ts';
import { type QueuedFile, useImportQueue } from './useImportQueue.ts';
import './ImportPage.css';

const bookPage = (bookId: string) => `${appPaths.library}book/${encodeURIComponent(bookId)}/`;

export function ImportPage() {
  const { files, add } = useImportQueue();
  const [over, setOver] = useState(false);
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);

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

      <NewEdition onSubmit={(bookId, file) => add([{ file, path: file.name }], { replace: bookId })} />
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

function NewEdition({ onSubmit }: { onSubmit: (bookId: string, file: File) => void }) {
  const [bookId, setBookId] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [errors, setErrors] = useState<{ book?: string[]; file?: string[] }>({});
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const next = { book: bookId.trim() ? undefined : ['Give the book id of the title.'], file: file ? undefined : ['Choose the new edition’s file.'] };
    setErrors(next);
    if (next.book || next.file || !file) return;
    onSubmit(bookId.trim(), file);
    setFile(null);
    (e.currentTarget as HTMLFormElement).reset();
  };
  return (
    <section className="admin-panel" aria-labelledby="admin-new-edition">
      <h2 id="admin-new-edition">{M.newEditionHeading}</h2>
      <p className="admin-hint">{M.newEditionHint}</p>
      <form className="admin-form" onSubmit={submit} noValidate>
        <TextField label="Book id" name="book_id" value={bookId} onChange={(e) => setBookId(e.target.value)} errors={errors.book} autoComplete="off" />
        <div className="field">
          <label className="field__label" htmlFor="admin-edition-file">
            File
          </label>
          <input id="admin-edition-file" type="file" accept=".epub,.pdf" onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} aria-invalid={errors.file ? true : undefined} />
          {errors.file ? <p className="admin-error">{errors.file.join(' ')}</p> : null}
        </div>
        <div className="admin-form__actions">
          <Button type="submit" variant="secondary">
            Import the new edition
          </Button>
        </div>
      </form>
    </section>
  );
}
