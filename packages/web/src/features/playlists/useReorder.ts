/**
 * Reordering a playlist's items (the queue's order is the reader's: docs/decisions.md). Move up / Move down
 * buttons are the keyboard path; drag and drop is the pointer's. Each move is shown at once and kept on the
 * server with the whole list (PUT /api/v2/collections/{id}/order/); a failure puts the old order back.
 */
import { useCallback, useRef, useState } from 'react';
import type { Collection } from '@lectern/core';
import { usePlaylistActions } from '../../shared/playlists/actions.ts';

/** The list with the item at `from` put at `to`. */
export function moved<T>(list: readonly T[], from: number, to: number): T[] {
  const next = [...list];
  const [item] = next.splice(from, 1);
  if (item === undefined) return next;
  next.splice(Math.max(0, Math.min(to, next.length)), 0, item);
  return next;
}

export function useReorder(playlist: Collection) {
  const actions = usePlaylistActions();
  const [announcement, setAnnouncement] = useState('');
  const [dragging, setDragging] = useState<string | null>(null);
  const [over, setOver] = useState<string | null>(null);
  /** The item whose move button had focus: it keeps focus after the move (or moves to its other button). */
  const refocus = useRef<{ apiUrl: string; direction: 'up' | 'down' } | null>(null);

  const urls = playlist.content.map((i) => i.api_url);

  const move = useCallback(
    (apiUrl: string, to: number, label: string) => {
      const from = urls.indexOf(apiUrl);
      if (from < 0 || to < 0 || to >= urls.length || from === to) return;
      setAnnouncement(`Moved ${label} to position ${to + 1} of ${urls.length}.`);
      actions.reorder(playlist.id, moved(urls, from, to)).catch(() => setAnnouncement(`${label} could not be moved.`));
    },
    [actions, playlist.id, urls],
  );

  const buttons = (apiUrl: string, label: string) => {
    const index = urls.indexOf(apiUrl);
    return {
      index,
      count: urls.length,
      up: () => {
        refocus.current = { apiUrl, direction: 'up' };
        move(apiUrl, index - 1, label);
      },
      down: () => {
        refocus.current = { apiUrl, direction: 'down' };
        move(apiUrl, index + 1, label);
      },
    };
  };

  /** Props for a grid item that can be dropped on and dragged by its handle. */
  const dropTarget = (apiUrl: string, label: string) => ({
    onDragOver: (e: React.DragEvent) => {
      if (!dragging) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = 'move';
      if (over !== apiUrl) setOver(apiUrl);
    },
    onDrop: (e: React.DragEvent) => {
      if (!dragging) return;
      e.preventDefault();
      const to = urls.indexOf(apiUrl);
      const draggedLabel = e.dataTransfer.getData('text/plain') || label;
      move(dragging, to, draggedLabel);
      setDragging(null);
      setOver(null);
    },
  });

  const handle = (apiUrl: string, label: string, item: () => HTMLElement | null) => ({
    draggable: true,
    onDragStart: (e: React.DragEvent) => {
      e.dataTransfer.effectAllowed = 'move';
      e.dataTransfer.setData('text/plain', label);
      const el = item();
      if (el) e.dataTransfer.setDragImage(el, 24, 24);
      setDragging(apiUrl);
    },
    onDragEnd: () => {
      setDragging(null);
      setOver(null);
    },
  });

  return { buttons, dropTarget, handle, dragging, over, announcement, refocus };
}
