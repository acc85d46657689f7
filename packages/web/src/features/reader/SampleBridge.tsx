/**
 * The end of a sample (docs/decisions.md "The sample bridge"): when a reader who may not read on reaches the end of
 * a chapter open to everyone and the next chapter is locked for them, a bar below the chapter names what comes next
 * and how to keep reading — sign in (back to that chapter afterwards), or, for an account whose subscription has
 * ended, subscribe. Whether the next chapter is locked is the server's answer for it, not a guess from flags.
 */
import { MESSAGES, paths, type ArchiveItem } from '@lectern/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { readerApi } from '../../api/reader.ts';
import { appPaths } from '../../shared/links.ts';
import { ButtonLink } from '../../components/Button.tsx';
import { ReaderIcon } from '../../shared/reading/ReaderIcon.tsx';
import { useLoadedReaderChapter } from './useReaderChapter.ts';
import { readerKeys } from '../../shared/reading/readerKeys.ts';
import './SampleBridge.css';

export const BRIDGE_TEXT = {
  heading: "That's the end of the sample.",
  next: (label: string) => `Next: ${label}.`,
  signIn: 'Sign in to keep reading',
  subscribe: 'Subscribe to keep reading.',
  backToTitle: 'Back to the title',
} as const;

/** Is the next chapter refused to this reader? Signed-in readers have it prefetched; anonymous ones ask for it. */
function useNextRefusal(bookId: string, item: ArchiveItem, userId: string | null) {
  const next = item.next_chapter_uri;
  const open = item.as_sample || item.is_public;
  const prefetched = useLoadedReaderChapter(bookId, next, userId);
  const asked = useQuery({
    queryKey: ['reader-next-lock', bookId, next ?? ''],
    queryFn: async ({ signal }) => (await readerApi.getBlock({ bookId, href: next!, updateProgress: false }, signal))[0] ?? null,
    enabled: !userId && open && !!next,
    staleTime: 10 * 60_000,
  });
  if (!open || !next) return null;
  const nextItem = userId ? (prefetched && 'item' in prefetched ? prefetched.item : null) : asked.data;
  return nextItem?.error ? nextItem : null;
}

export function SampleBridge(props: { bookId: string; titleSafe: string; item: ArchiveItem; userId: string | null; atEnd: boolean }) {
  const { bookId, titleSafe, item, userId, atEnd } = props;
  const refusal = useNextRefusal(bookId, item, userId);
  const toc = useQuery({
    queryKey: readerKeys.toc(bookId, ''),
    queryFn: ({ signal }) => readerApi.getToc(bookId, null, signal),
    staleTime: 10 * 60_000,
    enabled: !!refusal,
  });
  // Once reached, the bar stays for this chapter: it takes room from the chapter, which may move the reader back
  // under 99 %, and must not then flicker away and back.
  const [reached, setReached] = useState<string | null>(null);
  if (atEnd && refusal && reached !== item.chapter_href) setReached(item.chapter_href);
  if (!refusal || reached !== item.chapter_href || !item.next_chapter_uri) return null;
  const next = item.next_chapter_uri;
  const label = toc.data?.chapters.find((c) => c.uri === next)?.label || refusal.chapter_label;
  const signIn = refusal.error === MESSAGES.signInToRead;
  const nextUrl = paths.reader(titleSafe, bookId, next);
  return (
    <aside className="sample-bridge" aria-labelledby="sample-bridge-heading">
      <span className="sample-bridge__icon" aria-hidden="true">
        <ReaderIcon name="lock" size={20} />
      </span>
      <div className="sample-bridge__text" role="status">
        <p id="sample-bridge-heading" className="sample-bridge__heading">
          {BRIDGE_TEXT.heading}
        </p>
        <p className="sample-bridge__next">
          {label ? BRIDGE_TEXT.next(label) : null} {signIn ? null : BRIDGE_TEXT.subscribe}
        </p>
      </div>
      {signIn ? (
        <ButtonLink className="sample-bridge__action" size="md" to={appPaths.login(nextUrl)}>
          {BRIDGE_TEXT.signIn}
        </ButtonLink>
      ) : (
        <ButtonLink className="sample-bridge__action" size="md" variant="secondary" to={paths.titlePage(bookId)}>
          {BRIDGE_TEXT.backToTitle}
        </ButtonLink>
      )}
    </aside>
  );
}
