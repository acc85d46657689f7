/**
 * Editors' transformation playlists with their topic's banner (library-playlists-account.md §2; docs/decisions.md "The
 * marketing modules"): an editor's public playlist under a topic, shown on the home (the newest few) and on the topic's
 * page (all of them). The banner names the topic and links to it; the playlist's first titles follow as cards. Nothing
 * when none is published.
 */
import { useQuery } from '@tanstack/react-query';
import { MARKETING_MESSAGES, paths, type TransformationPlaylist } from '@lectern/core';
import { useId } from 'react';
import { Link } from 'react-router';
import { api } from '../api/client.ts';
import { queryKeys } from '../api/queryKeys.ts';
import { TitleGrid } from './TitleGrid.tsx';
import './TransformationPlaylists.css';

export function TransformationPlaylists({ topic, userKey }: { topic?: string; userKey: string }) {
  const playlists = useQuery({
    queryKey: queryKeys.transformationPlaylists(topic ?? '', userKey),
    queryFn: ({ signal }) => api.transformationPlaylists(topic, signal),
    staleTime: 60_000,
  });
  if (!playlists.data?.length) return null;
  return (
    <>
      {playlists.data.map((p) => (
        <PlaylistBanner key={p.id} playlist={p} onTopicPage={topic !== undefined} />
      ))}
    </>
  );
}

function PlaylistBanner({ playlist, onTopicPage }: { playlist: TransformationPlaylist; onTopicPage: boolean }) {
  const headingId = useId();
  return (
    <section className="transformation" aria-labelledby={headingId} data-transformation-playlist={playlist.id}>
      <div className="transformation__banner">
        <p className="transformation__eyebrow">{MARKETING_MESSAGES.transformationEyebrow(playlist.topic.name)}</p>
        <h2 id={headingId} className="transformation__title">
          {playlist.name}
        </h2>
        {playlist.description ? <p className="transformation__lead">{playlist.description}</p> : null}
        <p className="transformation__meta">
          {MARKETING_MESSAGES.transformationCurator(playlist.curator)} · {MARKETING_MESSAGES.transformationCount(playlist.count)}
          {onTopicPage ? null : (
            <>
              {' · '}
              <Link to={paths.topic(playlist.topic.slug)} className="transformation__topic-link">
                {MARKETING_MESSAGES.transformationBrowseTopic(playlist.topic.name)}
              </Link>
            </>
          )}
        </p>
      </div>
      {playlist.titles.length ? <TitleGrid titles={playlist.titles} label={playlist.name} /> : null}
    </section>
  );
}
