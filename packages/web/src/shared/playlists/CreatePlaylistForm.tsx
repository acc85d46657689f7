/**
 * The create form of library-playlists-account.md §2 and §4, used by the create page and the create modal.
 * A new playlist starts named 'New playlist'; the name is checked live (`validatePlaylist`) against the user's
 * playlists. States: idle, fetching, error, success; Create is disabled while fetching or on error. The flow
 * creates with name and description (empty sent as ''), then adds the optional content (a failure there is
 * ignored and the user proceeds), then the page goes to the new playlist while the modal shows the success line.
 */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import {
  contentFormatName,
  createdWithContent,
  LIMITS,
  PLAYLIST_MESSAGES,
  validatePlaylist,
  type Collection,
  type Topic,
} from '@lectern/core';
import { Icon } from '../../components/Icon.tsx';
import { Notice } from '../../components/Notice.tsx';
import { TextArea } from '../../components/TextArea.tsx';
import { TextField } from '../../components/TextField.tsx';
import { isApiError, type FieldErrors } from '../../api/client.ts';
import { appPaths } from '../links.ts';
import { usePlaylistActions } from './actions.ts';
import { usePlaylists } from './store.ts';
import './PlaylistForms.css';

export type CreateFormState = 'idle' | 'fetching' | 'error' | 'success';

/** §3 "Form feedback state". */
export interface FormFeedback {
  exists: boolean;
  description: string;
  css_class: 'success' | 'error' | '';
  url?: string;
}
const NO_FEEDBACK: FormFeedback = { exists: false, description: '', css_class: '' };

export interface CreateContent {
  apiUrl: string;
  contentFormat?: string | null;
  topics?: readonly Topic[];
  /** The title, for the modal's introduction. */
  title?: string;
}

export function useCreatePlaylistForm(content: CreateContent | null | undefined) {
  const { playlists } = usePlaylists();
  const actions = usePlaylistActions();
  const [name, setName] = useState<string>(PLAYLIST_MESSAGES.newPlaylistName);
  const [description, setDescription] = useState('');
  const [requestFailed, setRequestFailed] = useState(false);
  const [fetching, setFetching] = useState(false);
  const [serverErrors, setServerErrors] = useState<FieldErrors>({});
  const [created, setCreated] = useState<Collection | null>(null);
  const [feedback, setFeedback] = useState<FormFeedback>(NO_FEEDBACK);

  const errors = validatePlaylist({ name, description }, playlists);
  const nameErrors = errors.name ? [errors.name] : serverErrors.name;
  const descriptionErrors = errors.description ? [errors.description] : serverErrors.description;
  const invalid = !!(errors.name || errors.description);
  const state: CreateFormState = created ? 'success' : fetching ? 'fetching' : invalid || requestFailed ? 'error' : 'idle';
  const canCreate = state === 'idle';

  const edit = (field: 'name' | 'description', value: string) => {
    if (field === 'name') setName(value);
    else setDescription(value);
    setRequestFailed(false);
    setServerErrors({});
    if (feedback.css_class === 'error') setFeedback(NO_FEEDBACK);
  };

  const submit = async (): Promise<Collection | null> => {
    if (!canCreate) return null;
    setFetching(true);
    setFeedback(NO_FEEDBACK);
    let playlist: Collection;
    try {
      playlist = await actions.create({ name, description });
    } catch (error) {
      setFetching(false);
      setRequestFailed(true);
      setServerErrors(isApiError(error) ? error.errors : {});
      setFeedback({ exists: true, description: PLAYLIST_MESSAGES.tryAgain, css_class: 'error' });
      return null;
    }
    if (content) {
      try {
        await actions.addContent(playlist.id, [content.apiUrl], content.topics ?? [], { quiet: true });
      } catch {
        // §4: a failure adding content after create is ignored and the user proceeds
      }
    }
    setFetching(false);
    setCreated(playlist);
    setFeedback({
      exists: true,
      description: createdWithContent(contentFormatName(content?.contentFormat)),
      css_class: 'success',
      url: appPaths.playlist(playlist.id, playlist.is_default),
    });
    return playlist;
  };

  const reset = () => {
    setName(PLAYLIST_MESSAGES.newPlaylistName);
    setDescription('');
    setRequestFailed(false);
    setServerErrors({});
    setCreated(null);
    setFeedback(NO_FEEDBACK);
  };

  return { name, description, edit, nameErrors, descriptionErrors, state, canCreate, submit, reset, created, feedback };
}

export type CreatePlaylistFormModel = ReturnType<typeof useCreatePlaylistForm>;

/** The fields and messages; buttons are the caller's (page footer or modal footer). */
export function CreatePlaylistFields({ form, formId, onSubmitted, autoFocus = true }: { form: CreatePlaylistFormModel; formId: string; onSubmitted?: (p: Collection) => void; autoFocus?: boolean }) {
  const nameRef = useRef<HTMLInputElement>(null);
  const successRef = useRef<HTMLAnchorElement>(null);
  const feedbackId = useId();

  useEffect(() => {
    if (form.state === 'success') successRef.current?.focus();
  }, [form.state]);

  useEffect(() => {
    if (form.state === 'idle' && autoFocus && form.name === PLAYLIST_MESSAGES.newPlaylistName && !form.description) {
      // the name field starts filled in: select it so typing replaces it
      nameRef.current?.focus();
      nameRef.current?.select();
    }
    // only when the form (re)starts
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [form.created]);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const playlist = await form.submit();
    if (playlist) onSubmitted?.(playlist);
  };

  if (form.state === 'success' && form.created && form.feedback.url) {
    return (
      <div className="create-success" role="status">
        <span className="create-success__icon" aria-hidden="true">
          <Icon name="check" size={22} />
        </span>
        <p className="create-success__text">
          {form.feedback.description}
          <Link ref={successRef} to={form.feedback.url}>
            Visit {form.created.name}
          </Link>
        </p>
      </div>
    );
  }

  return (
    <form id={formId} className="playlist-form" noValidate onSubmit={(e) => void onSubmit(e)} aria-busy={form.state === 'fetching' || undefined} aria-describedby={form.feedback.exists ? feedbackId : undefined}>
      <TextField
        ref={nameRef}
        label={PLAYLIST_MESSAGES.nameLabel}
        name="name"
        autoComplete="off"
        value={form.name}
        onChange={(e) => form.edit('name', e.target.value)}
        errors={form.nameErrors}
        counter={`${form.name.trim().length} / ${LIMITS.playlistNameMax}`}
        disabled={form.state === 'fetching'}
      />
      <TextArea
        label="Description"
        labelNote={PLAYLIST_MESSAGES.descriptionLabel}
        name="description"
        rows={3}
        value={form.description}
        onChange={(e) => form.edit('description', e.target.value)}
        errors={form.descriptionErrors}
        counter={`${form.description.length} / ${LIMITS.playlistDescriptionMax}`}
        disabled={form.state === 'fetching'}
      />
      {form.feedback.exists && form.feedback.css_class === 'error' ? (
        <div id={feedbackId}>
          <Notice tone="error">There was a problem creating your playlist. {form.feedback.description}</Notice>
        </div>
      ) : null}
    </form>
  );
}
