/** The reader's top bar: contents, the book and chapter titles, the chapter's playlist dropdown, search, read aloud, notes, display settings. */
import { ANNOTATION_MESSAGES, paths, READ_ALOUD_MESSAGES, type ArchiveItem } from '@lectern/core';
import type { RefObject } from 'react';
import { Link } from 'react-router';
import { PlaylistDropdown } from '../../shared/playlists/PlaylistTitleCard.tsx';
import { ReaderIcon } from '../../shared/reading/ReaderIcon.tsx';

export interface ReaderToolbarProps {
  bookId: string;
  item: ArchiveItem | null;
  chapterLabel: string;
  /** The chapter is on show (its dropdown makes sense). */
  showDropdown: boolean;
  tocOpen: boolean;
  settingsOpen: boolean;
  searchOpen: boolean;
  tocButton: RefObject<HTMLButtonElement | null>;
  settingsButton: RefObject<HTMLButtonElement | null>;
  searchButton: RefObject<HTMLButtonElement | null>;
  onToc: () => void;
  onSettings: () => void;
  onSearch: () => void;
  /** The notes panel's button (signed-in readers of HTML chapters); absent: no button. */
  notes?: { open: boolean; button: RefObject<HTMLButtonElement | null>; onToggle: () => void };
  /** The read-aloud button (HTML chapters, docs/decisions.md "Read aloud"); absent: no button. */
  readAloud?: { open: boolean; button: RefObject<HTMLButtonElement | null>; onToggle: () => void };
}

export function ReaderToolbar(props: ReaderToolbarProps) {
  const { bookId, item, chapterLabel, showDropdown, tocOpen, settingsOpen, searchOpen, tocButton, settingsButton, searchButton, onToc, onSettings, onSearch } = props;
  return (
    <div className="reader-toolbar" role="toolbar" aria-label="Reader">
      <button
        ref={tocButton}
        type="button"
        className="reader-iconbtn reader-toolbar__toc"
        aria-label="Table of contents"
        aria-expanded={tocOpen}
        aria-controls="reader-toc"
        onClick={onToc}
      >
        <ReaderIcon name="toc" />
      </button>
      <div className="reader-toolbar__titles">
        {item ? (
          <Link to={paths.titlePage(bookId)} className="reader-toolbar__book">
            {item.title}
          </Link>
        ) : (
          <span className="reader-toolbar__book">&nbsp;</span>
        )}
        <h1 className="reader-toolbar__chapter" id="chapter-heading">
          {chapterLabel || '\u00a0'}
        </h1>
      </div>
      {item && showDropdown ? (
        <PlaylistDropdown
          describedBy="chapter-heading"
          content={{ apiUrl: paths.chapterApi(bookId, item.chapter_href), contentFormat: 'chapter', topics: [], title: chapterLabel || item.title }}
        />
      ) : null}
      <button
        ref={searchButton}
        type="button"
        className="reader-iconbtn reader-toolbar__search"
        aria-label="Search this book"
        aria-expanded={searchOpen}
        aria-controls="reader-search"
        aria-keyshortcuts="/"
        onClick={onSearch}
      >
        <ReaderIcon name="search" />
      </button>
      {props.readAloud ? (
        <button
          ref={props.readAloud.button}
          type="button"
          className="reader-iconbtn reader-toolbar__read-aloud"
          aria-label={READ_ALOUD_MESSAGES.button}
          aria-expanded={props.readAloud.open}
          aria-controls="reader-read-aloud"
          onClick={props.readAloud.onToggle}
        >
          <ReaderIcon name="speaker" />
        </button>
      ) : null}
      {props.notes ? (
        <button
          ref={props.notes.button}
          type="button"
          className="reader-iconbtn reader-toolbar__notes"
          aria-label={ANNOTATION_MESSAGES.notesHeading}
          aria-expanded={props.notes.open}
          aria-controls="reader-notes"
          onClick={props.notes.onToggle}
        >
          <ReaderIcon name="notes" />
        </button>
      ) : null}
      <button
        ref={settingsButton}
        type="button"
        className="reader-iconbtn reader-toolbar__settings"
        aria-label="Display settings"
        aria-expanded={settingsOpen}
        aria-controls="reader-settings"
        onClick={onSettings}
      >
        <ReaderIcon name="type" />
      </button>
    </div>
  );
}
