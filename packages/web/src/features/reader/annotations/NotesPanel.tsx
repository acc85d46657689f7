/**
 * The notes panel (docs/decisions.md "Annotations in the reader"): the reader's own highlights and notes of the whole
 * book, by chapter in reading order, filtered by tag, each a way back to its place; the ones that can no longer be
 * found in their chapter are marked (never dropped); the export as Markdown or JSON.
 */
import { annotationPaths, ANNOTATION_MESSAGES, truncateQuote, type Annotation, type TocItem } from '@lectern/core';
import { useQuery } from '@tanstack/react-query';
import { memo, useId, useMemo, useState } from 'react';
import { queryKeys } from '../../../api/queryKeys.ts';
import { readerApi } from '../../../api/reader.ts';
import { SidePanel } from '../../../shared/reading/SidePanel.tsx';
import { readerKeys } from '../../../shared/reading/readerKeys.ts';
import { NoteMarkdown } from './NoteMarkdown.tsx';
import { searchAllAnnotations } from './searchAll.ts';
import { annotationToken } from './useChapterAnnotations.ts';

function flatten(items: readonly TocItem[], out: TocItem[] = []): TocItem[] {
  for (const item of items) {
    out.push(item);
    flatten(item.children, out);
  }
  return out;
}

export interface NotesPanelProps {
  open: boolean;
  bookId: string;
  titleSafe: string;
  userUuid: string;
  /** ids of the chapter on show whose words were not found */
  orphanIds: ReadonlySet<string>;
  onClose: () => void;
  onGo: (annotation: Annotation) => void;
}

export const NotesPanel = memo(function NotesPanel({ open, bookId, titleSafe, userUuid, orphanIds, onClose, onGo }: NotesPanelProps) {
  const tagId = useId();
  const [tag, setTag] = useState('');
  const notes = useQuery({
    queryKey: queryKeys.annotations(bookId, userUuid),
    queryFn: async ({ signal }) =>
      searchAllAnnotations(annotationPaths.prefix(titleSafe || 'book', bookId), await annotationToken(), { user: userUuid }, signal),
    enabled: open,
    staleTime: 0,
  });
  const toc = useQuery({
    queryKey: readerKeys.toc(bookId, ''),
    queryFn: ({ signal }) => readerApi.getToc(bookId, null, signal),
    enabled: open,
    staleTime: 10 * 60_000,
  });

  const chapters = useMemo(() => {
    const order = new Map<string, { label: string; index: number }>();
    flatten(toc.data?.items ?? []).forEach((item, index) => {
      if (!order.has(item.full_path)) order.set(item.full_path, { label: item.label, index });
    });
    const rows = (notes.data ?? []).filter((a) => !tag || a.tags.includes(tag));
    const groups = new Map<string, Annotation[]>();
    for (const a of rows) groups.set(a.chapter_href, [...(groups.get(a.chapter_href) ?? []), a]);
    return [...groups]
      .map(([href, list]) => ({ href, label: order.get(href)?.label ?? href, index: order.get(href)?.index ?? Number.MAX_SAFE_INTEGER, list }))
      .sort((a, b) => a.index - b.index);
  }, [notes.data, toc.data, tag]);
  const tags = useMemo(() => [...new Set((notes.data ?? []).flatMap((a) => a.tags))].sort((a, b) => a.localeCompare(b)), [notes.data]);

  return (
    <SidePanel open={open} block="reader-search" className="reader-notes" label={ANNOTATION_MESSAGES.notesHeading} heading={ANNOTATION_MESSAGES.notesHeading} closeLabel="Close notes" onClose={onClose}>
      <div className="reader-notes__tools">
        <label htmlFor={tagId}>Tag</label>
        <select id={tagId} value={tag} onChange={(e) => setTag(e.target.value)} className="reader-search__field">
          <option value="">All</option>
          {tags.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
        {/* The two exports stay together (JSON alone on a row looked like something else). */}
        <div className="reader-notes__export">
          <a className="reader-chip" href={annotationPaths.export(bookId, 'markdown')} download>
            Export Markdown
          </a>
          <a className="reader-chip" href={annotationPaths.export(bookId, 'json')} download>
            JSON
          </a>
        </div>
      </div>
      <div className="reader-search__body">
        <div className="reader-search__status" role="status">
          {notes.isPending && open ? <p>Loading…</p> : null}
          {notes.isError ? <p className="reader-search__message reader-search__message--error">{ANNOTATION_MESSAGES.couldNotLoad}</p> : null}
          {notes.data && chapters.length === 0 ? <p>{tag ? ANNOTATION_MESSAGES.notesNoneTagged(tag) : ANNOTATION_MESSAGES.notesEmpty}</p> : null}
        </div>
        {chapters.map((c) => (
          <section key={c.href} className="reader-notes__chapter" aria-label={c.label}>
            <h3 className="reader-search__chapter">{c.label}</h3>
            <ul className="reader-search__results">
              {c.list.map((a) => (
                <li key={a.id} className="reader-search__result">
                  <button type="button" className="reader-search__link reader-notes__item" onClick={() => onGo(a)}>
                    <span className="reader-notes__quote">{truncateQuote(a.quote)}</span>
                    {orphanIds.has(a.id) ? <span className="reader-notes__orphan">{ANNOTATION_MESSAGES.orphaned}</span> : null}
                  </button>
                  {a.text ? <NoteMarkdown text={a.text} className="reader-notes__text" /> : null}
                  {a.tags.length ? <p className="reader-notes__tags">{a.tags.map((t) => `#${t}`).join(' ')}</p> : null}
                </li>
              ))}
            </ul>
          </section>
        ))}
      </div>
    </SidePanel>
  );
});
