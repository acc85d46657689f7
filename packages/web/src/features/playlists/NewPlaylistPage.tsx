/**
 * Create page (/c/new-collection/): the create form on a page. A contentUri in the navigation state is added to
 * the new playlist; on success the page goes to the new playlist.
 */
import { useId } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { PLAYLIST_MESSAGES } from '@lectern/core';
import { Button } from '../../components/Button.tsx';
import { appPaths } from '../../shared/links.ts';
import { CreatePlaylistFields, useCreatePlaylistForm } from '../../shared/playlists/CreatePlaylistForm.tsx';
import { normalizeUri } from '../../shared/playlists/actions.ts';
import '../../shared/playlists/PlaylistForms.css';

export function NewPlaylistPage() {
  const location = useLocation();
  const navigate = useNavigate();
  const state = location.state as { contentUri?: unknown } | null;
  const contentUri = typeof state?.contentUri === 'string' ? normalizeUri(state.contentUri) : null;
  const form = useCreatePlaylistForm(contentUri ? { apiUrl: contentUri } : null);
  const formId = useId();
  return (
    <div className="edit-playlist">
      <title>{`${PLAYLIST_MESSAGES.createModalTitle} · Lectern`}</title>
      <header className="playlist__header">
        <p className="playlist__eyebrow">Playlists</p>
        <h1 className="page-heading">{PLAYLIST_MESSAGES.createModalTitle}</h1>
      </header>
      <div className="edit-playlist__form">
        <CreatePlaylistFields form={form} formId={formId} onSubmitted={(p) => navigate(appPaths.playlist(p.id, p.is_default), { replace: true })} />
        {form.state !== 'success' ? (
          <div className="edit-playlist__actions edit-playlist__actions--end">
            <div className="edit-playlist__primary">
              <Button variant="secondary" onClick={() => navigate(appPaths.playlists)} disabled={form.state === 'fetching'}>
                Cancel
              </Button>
              <Button type="submit" form={formId} disabled={!form.canCreate} busy={form.state === 'fetching'}>
                {form.state === 'fetching' ? 'Creating…' : 'Create'}
              </Button>
            </div>
          </div>
        ) : null}
      </div>
    </div>
  );
}
