/**
 * The dialogs the title card's playlist menu opens (library-playlists-account.md §2): 'Create new playlist' with
 * the title as its content, and 'Add to another playlist' with a search box. Loaded on first use.
 */
import { useId, useRef, useState, type RefObject } from 'react';
import { PLAYLIST_MESSAGES, searchPlaylists } from '@lectern/core';
import { Button } from '../../components/Button.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Modal } from '../../components/Modal.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { CreatePlaylistFields, useCreatePlaylistForm, type CreateContent } from './CreatePlaylistForm.tsx';
import { itemCount, type PlaylistEntry } from './store.ts';
import './PlaylistForms.css';

interface BaseProps {
  open: boolean;
  onClose: () => void;
  onExited?: () => void;
  returnFocus?: RefObject<HTMLElement | null>;
}

export function CreatePlaylistModal({ open, onClose, onExited, returnFocus, content }: BaseProps & { content?: CreateContent | null }) {
  const form = useCreatePlaylistForm(content);
  const formId = useId();
  const success = form.state === 'success';
  // Typed but not created yet: Escape, the backdrop and the close button ask before throwing it away.
  const unsaved = !success && (form.name !== PLAYLIST_MESSAGES.newPlaylistName || form.description !== '');
  return (
    <Modal
      open={open}
      onClose={onClose}
      unsaved={unsaved}
      onExited={onExited}
      returnFocus={returnFocus}
      title={PLAYLIST_MESSAGES.createModalTitle}
      footer={
        success ? (
          <>
            <Button variant="secondary" onClick={onClose}>
              Close
            </Button>
            <Button onClick={form.reset}>{PLAYLIST_MESSAGES.createAnother}</Button>
          </>
        ) : (
          <>
            <Button variant="secondary" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" form={formId} disabled={!form.canCreate} busy={form.state === 'fetching'}>
              {form.state === 'fetching' ? 'Creating…' : 'Create'}
            </Button>
          </>
        )
      }
    >
      {content?.title && !success ? (
        <p className="modal-intro">
          <Icon name="book" size={16} />
          <span>
            <span className="visually-hidden">Title: </span>
            {content.title}
          </span>
        </p>
      ) : null}
      <CreatePlaylistFields form={form} formId={formId} />
    </Modal>
  );
}

export interface AddToAnotherProps extends BaseProps {
  playlists: readonly PlaylistEntry[];
  title: string;
  contains: (p: PlaylistEntry) => boolean;
  stateOf: (p: PlaylistEntry) => 'busy' | 'error' | null;
  onToggle: (p: PlaylistEntry) => void;
}

/** Every playlist, filtered by a case-insensitive substring of its name; one click adds or removes the title. */
export function AddToAnotherModal({ open, onClose, onExited, returnFocus, playlists, title, contains, stateOf, onToggle }: AddToAnotherProps) {
  const [query, setQuery] = useState('');
  const searchRef = useRef<HTMLInputElement>(null);
  const statusId = useId();
  const results = searchPlaylists(playlists, query);
  return (
    <Modal
      open={open}
      onClose={onClose}
      onExited={onExited}
      returnFocus={returnFocus}
      initialFocus={searchRef}
      title={PLAYLIST_MESSAGES.addToAnother}
      footer={<Button onClick={onClose}>Done</Button>}
    >
      <p className="modal-intro">
        <Icon name="book" size={16} />
        <span>
          <span className="visually-hidden">Title: </span>
          {title}
        </span>
      </p>
      <div className="playlist-search">
        <Icon name="search" size={16} className="playlist-search__icon" />
        <input
          ref={searchRef}
          type="search"
          className="playlist-search__input"
          placeholder={PLAYLIST_MESSAGES.findPlaylist}
          aria-label={PLAYLIST_MESSAGES.findPlaylist}
          aria-describedby={statusId}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
      </div>
      <p className="playlist-search__status" id={statusId} role="status">
        {results.length ? PLAYLIST_MESSAGES.choosePlaylist : PLAYLIST_MESSAGES.noResults}
      </p>
      {results.length ? (
        <ul className="playlist-choices">
          {results.map((p) => {
            const checked = contains(p);
            const state = stateOf(p);
            return (
              <li key={p.id}>
                <button
                  type="button"
                  className={`playlist-choice${checked ? ' playlist-choice--on' : ''}${state === 'error' ? ' playlist-choice--error' : ''}`}
                  aria-pressed={checked}
                  aria-busy={state === 'busy' || undefined}
                  onClick={() => {
                    if (state !== 'busy') onToggle(p);
                  }}
                >
                  <span className={`menu__check${checked ? ' menu__check--on' : ''}`} aria-hidden="true">
                    <svg width="12" height="12" viewBox="0 0 24 24" focusable="false">
                      <path d="M5 12.5l4.5 4.5L19 7.5" fill="none" stroke="currentColor" strokeWidth="3" strokeLinecap="round" strokeLinejoin="round" />
                    </svg>
                  </span>
                  <span className="playlist-choice__name">{p.name}</span>
                  <span className="playlist-choice__count">
                    {itemCount(p)}
                    <span className="visually-hidden">{itemCount(p) === 1 ? ' item' : ' items'}</span>
                  </span>
                  {state === 'busy' ? <Spinner size="sm" /> : null}
                  {state === 'error' ? <span className="visually-hidden">, the last change failed</span> : null}
                </button>
              </li>
            );
          })}
        </ul>
      ) : null}
    </Modal>
  );
}
