/**
 * Edit page (library-playlists-account.md §2, §4, §5): name and description checked live against the user's
 * other playlists; Save shows 'Working... saving your changes', then 'Changes saved', and goes to the playlist
 * after 1350 ms; Save is disabled while a request is in flight or a field error shows. Delete asks first (the
 * 'Delete playlist' dialog) and goes to /c/; if it fails the dialog closes and the error shows. Duplicate makes
 * 'Copy of {name}' with the same description and items, then opens its edit page (also when adding items fails).
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router';
import {
  duplicateName,
  itemCount,
  LIMITS,
  PLAYLIST_ACTION_ERRORS,
  PLAYLIST_MESSAGES,
  PLAYLIST_TIMINGS,
  validatePlaylist,
  withTryAgain,
  type Collection,
} from '@lectern/core';
import { Button } from '../../components/Button.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Modal } from '../../components/Modal.tsx';
import { Notice } from '../../components/Notice.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { TextArea } from '../../components/TextArea.tsx';
import { TextField } from '../../components/TextField.tsx';
import { isApiError, type FieldErrors } from '../../api/client.ts';
import { appPaths } from '../../shared/links.ts';
import { reportError } from '../../shared/errorState.ts';
import { usePlaylistActions } from '../../shared/playlists/actions.ts';
import { usePlaylistItems, usePlaylists, type PlaylistEntry } from '../../shared/playlists/store.ts';
import '../../shared/playlists/PlaylistForms.css';

/** §4 "Edit actions are DELETE, DUPLICATE, UPDATE". */
export type EditAction = 'DELETE' | 'DUPLICATE' | 'UPDATE';

export function EditPlaylistPage() {
  const view = usePlaylists();
  const { collectionId = '' } = useParams();
  const navigate = useNavigate();
  const leaving = useRef(false);
  const entry = view.playlists.find((p) => p.id === collectionId);
  // its items (Duplicate copies them, the count shows them), and only its
  const items = usePlaylistItems(view.status === 'ready' && entry && !entry.is_default ? entry.id : null);
  const playlist = items.playlist;
  const problem =
    view.status !== 'ready' || leaving.current ? null : !entry || items.status === 'missing' ? 'unknown' : entry.is_default ? 'default' : null;

  useEffect(() => {
    if (!problem) return;
    if (problem === 'unknown') reportError('WARN', withTryAgain(PLAYLIST_MESSAGES.notFound), new Error(PLAYLIST_MESSAGES.collectionNotFound));
    else reportError('WARN', PLAYLIST_MESSAGES.defaultNotEditable);
    navigate(appPaths.playlists, { replace: true });
  }, [problem, navigate]);

  if (view.status !== 'ready' || !playlist || problem) {
    return (
      <div className="page-loading">
        <Spinner size="lg" label="Loading…" />
      </div>
    );
  }
  return <EditForm key={playlist.id} playlist={playlist} others={view.playlists} leaving={leaving} />;
}

function EditForm({ playlist, others, leaving }: { playlist: Collection; others: readonly PlaylistEntry[]; leaving: { current: boolean } }) {
  const navigate = useNavigate();
  const actions = usePlaylistActions();
  const [name, setName] = useState(playlist.name);
  const [description, setDescription] = useState(playlist.description);
  const [action, setAction] = useState<EditAction | null>(null);
  const [saved, setSaved] = useState(false);
  const [serverErrors, setServerErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const deleteButtonRef = useRef<HTMLButtonElement>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const errors = validatePlaylist({ name, description }, others, playlist.id);
  const nameErrors = errors.name ? [errors.name] : serverErrors.name;
  const descriptionErrors = errors.description ? [errors.description] : serverErrors.description;
  const busy = action !== null;
  const canSave = !busy && !errors.name && !errors.description;
  const playlistPath = appPaths.playlist(playlist.id, playlist.is_default);

  const edit = (field: 'name' | 'description', value: string) => {
    if (field === 'name') setName(value);
    else setDescription(value);
    setServerErrors({});
    setFailure(null);
    setSaved(false);
  };

  const fail = (message: string, error: unknown) => {
    setAction(null);
    setServerErrors(isApiError(error) ? error.errors : {});
    setFailure(withTryAgain(message));
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!canSave) return;
    setAction('UPDATE');
    setFailure(null);
    try {
      await actions.update({ id: playlist.id, name, description });
    } catch (error) {
      fail(PLAYLIST_ACTION_ERRORS.update, error);
      return;
    }
    setSaved(true);
    timer.current = setTimeout(() => navigate(playlistPath), PLAYLIST_TIMINGS.updateDelayMs);
  };

  const confirmDelete = async () => {
    setAction('DELETE');
    setFailure(null);
    try {
      await actions.remove(playlist.id, () => {
        leaving.current = true;
        navigate(appPaths.playlists);
      });
    } catch (error) {
      setConfirming(false);
      fail(PLAYLIST_ACTION_ERRORS.delete, error);
    }
  };

  const duplicate = async () => {
    setAction('DUPLICATE');
    setFailure(null);
    let copy: Collection;
    try {
      copy = await actions.create({ name: duplicateName(playlist.name, others), description: playlist.description });
    } catch (error) {
      fail(PLAYLIST_ACTION_ERRORS.create, error);
      return;
    }
    const urls = playlist.content.map((i) => i.api_url);
    if (urls.length) {
      try {
        await actions.addContent(copy.id, urls);
      } catch {
        // §4: the copy's edit page opens anyway; the error bar has said what failed
      }
    }
    navigate(appPaths.editPlaylist(copy.id));
  };

  const status = action === 'UPDATE' && !saved ? PLAYLIST_MESSAGES.saving : saved ? PLAYLIST_MESSAGES.saved : '';

  return (
    <div className="edit-playlist">
      <title>{`Edit ${playlist.name} · Lectern`}</title>
      <header className="playlist__header">
        <p className="playlist__eyebrow">Edit playlist</p>
        <h1 className="page-heading">{playlist.name}</h1>
        <p className="playlist__description">
          {itemCount(playlist.content.length)}
        </p>
      </header>

      <form className="playlist-form edit-playlist__form" noValidate onSubmit={(e) => void save(e)} aria-busy={busy || undefined}>
        <TextField
          label="Name"
          name="name"
          autoComplete="off"
          value={name}
          onChange={(e) => edit('name', e.target.value)}
          errors={nameErrors}
          counter={`${name.trim().length} / ${LIMITS.playlistNameMax}`}
          readOnly={busy}
        />
        <TextArea
          label="Description"
          labelNote={PLAYLIST_MESSAGES.descriptionLabel}
          name="description"
          rows={4}
          value={description}
          onChange={(e) => edit('description', e.target.value)}
          errors={descriptionErrors}
          counter={`${description.length} / ${LIMITS.playlistDescriptionMax}`}
          readOnly={busy}
        />

        {failure ? <Notice tone="error">{failure}</Notice> : null}

        <div className="edit-playlist__status" role="status">
          {status ? (
            <span className={`save-status${saved ? ' save-status--done' : ''}`}>
              {saved ? <Icon name="check" size={16} /> : <Spinner size="sm" />}
              {status}
            </span>
          ) : null}
        </div>

        <div className="edit-playlist__actions">
          <div className="edit-playlist__secondary">
            <Button variant="ghost" ref={deleteButtonRef} className="btn--danger-text" disabled={busy} onClick={() => setConfirming(true)}>
              <Icon name="trash" size={16} />
              Delete
            </Button>
            <Button variant="ghost" disabled={busy} busy={action === 'DUPLICATE'} onClick={() => void duplicate()}>
              {action === 'DUPLICATE' ? null : <Icon name="copy" size={16} />}
              Duplicate
            </Button>
          </div>
          <div className="edit-playlist__primary">
            <Button variant="secondary" disabled={busy} onClick={() => navigate(playlistPath)}>
              Cancel
            </Button>
            <Button type="submit" disabled={!canSave} busy={action === 'UPDATE' && !saved}>
              Save
            </Button>
          </div>
        </div>
      </form>

      <Modal
        open={confirming}
        onClose={() => {
          if (action !== 'DELETE') setConfirming(false);
        }}
        title={PLAYLIST_MESSAGES.deleteTitle}
        role="alertdialog"
        size="sm"
        describedBy="delete-playlist-text"
        returnFocus={deleteButtonRef}
        footer={
          <>
            <Button variant="secondary" disabled={action === 'DELETE'} onClick={() => setConfirming(false)}>
              Cancel
            </Button>
            <Button variant="danger" busy={action === 'DELETE'} onClick={() => void confirmDelete()}>
              Confirm
            </Button>
          </>
        }
      >
        <p id="delete-playlist-text">{PLAYLIST_MESSAGES.deleteConfirm}</p>
      </Modal>
    </div>
  );
}
