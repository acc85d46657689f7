import type { ReactNode, Ref } from 'react';
import type { ContentMetadata } from '@lectern/core';
import { Skeleton } from '../components/Skeleton.tsx';
import { PlaylistTitleCard } from './playlists/PlaylistTitleCard.tsx';
import './TitleGrid.css';

/** Responsive grid of title cards (with the playlist controls for signed-in users): one column on a phone, five or six on a desktop. */
export function TitleGrid({ titles, label, ref }: { titles: readonly ContentMetadata[]; label?: string; ref?: Ref<HTMLUListElement> }) {
  return (
    <ul className="title-grid" ref={ref} aria-label={label}>
      {titles.map((t, i) => (
        <li key={t.book_id} className="title-grid__item">
          <PlaylistTitleCard title={t} eagerCover={i < 6} />
        </li>
      ))}
    </ul>
  );
}

export function TitleGridSkeleton({ count = 10, children }: { count?: number; children?: ReactNode }) {
  return (
    <div className="title-grid-skeleton" role="status">
      <span className="visually-hidden">Loading titles…</span>
      <div className="title-grid" aria-hidden="true">
        {Array.from({ length: count }, (_, i) => (
          <div key={i} className="title-grid__item skeleton-card">
            <Skeleton className="skeleton-card__cover" />
            <div className="skeleton-card__body">
              <Skeleton style={{ width: '35%', height: '0.7rem' }} />
              <Skeleton style={{ width: '90%', height: '1rem' }} />
              <Skeleton style={{ width: '70%', height: '1rem' }} />
              <Skeleton style={{ width: '55%', height: '0.8rem' }} />
              <Skeleton style={{ width: '4.5rem', height: '2rem', marginTop: 'auto', borderRadius: 8 }} />
            </div>
          </div>
        ))}
      </div>
      {children}
    </div>
  );
}
