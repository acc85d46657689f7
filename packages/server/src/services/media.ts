/**
 * Video courses and audiobooks as they are played (docs/decisions.md "Media serving"; reader.md §3 "Video session", §6,
 * §7): the video session (`ks`), and which stored file a stream, a part's captions or a title's preview clip is, for
 * whom.
 *
 * The session is a capability token (SignedTokens, purpose 'media-session') naming the account (its uuid), the title
 * and an expiry MEDIA_SESSION_TTL_MS ahead; it is given only to a signed-in reader with rights to the whole title.
 * A part that is neither a sample nor public streams only with it, and only to the account it names (the request's
 * own session cookie, which a same-origin <video> sends), while that account still has the rights: a leaked address
 * plays nowhere else, and an account that lapses stops playing within a request, not an hour later.
 * Sample and public parts stream to anyone, as their chapters are read; the preview clip too (reader.md §6:
 * visitors get a preview player). docs/decisions.md "Media sessions".
 */
import {
  isMediaFormat,
  MEDIA_SESSION_MESSAGES,
  MEDIA_SESSION_TTL_MS,
  type MediaSession,
  MESSAGES,
} from '@lectern/core';
import type { TitleRow, UserRow } from '../db/schema.ts';
import { AppError, forbidden, notFound } from '../errors.ts';
import { assertCanReadChapter, hasLiveSubscription } from '../policies/reading.ts';
import type { MediaPart, MediaRepository } from '../repositories/media.ts';
import { CatalogCache, type CatalogService } from './catalog.ts';
import { SignedTokens } from './signed-tokens.ts';

/** What a stream sends: the stored file and its type. */
export interface MediaFile {
  file: string;
  mime: string;
}

export class MediaService {
  private readonly tokens: SignedTokens;

  constructor(
    secret: string,
    private readonly catalog: Pick<CatalogService, 'requireTitle' | 'refusalFor'>,
    private readonly media: Pick<MediaRepository, 'partOf' | 'captionsOf'>,
    /** the catalog's cache (its mediaParts), forgotten with the title's chapters; null: every request reads the row */
    private readonly cache: Pick<CatalogCache, 'mediaParts' | 'generation'> | null = null,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.tokens = new SignedTokens(secret, 'media-session');
  }

  /**
   * GET /api/v1/player/kaltura_session/: 401 for a visitor, 404 for no such media title, 403 (the reading policy's
   * words) for an account without rights to the whole title; else a fresh session.
   */
  async session(user: UserRow | null, bookId: string): Promise<MediaSession> {
    if (!user) throw new AppError(401, MESSAGES.userNotLoggedIn);
    const title = await this.mediaTitle(bookId);
    try {
      assertCanReadChapter(user, { as_sample: 0, is_public: 0 }, this.now());
    } catch (err) {
      throw await this.catalog.refusalFor(user, err);
    }
    const expiresMs = this.now().getTime() + MEDIA_SESSION_TTL_MS;
    return { ks: this.tokens.seal([user.uuid, title.book_id, expiresMs]), expires_at: new Date(expiresMs).toISOString() };
  }

  /** The file of a part, for GET|HEAD /api/v1/media/{book_id}/{href}?ks= (see the module comment for who gets it). */
  async stream(bookId: string, fullPath: string, user: UserRow | null, ks: string | undefined): Promise<MediaFile> {
    const { part } = await this.admit(bookId, fullPath, user, ks);
    return { file: part.storage_path, mime: part.mime };
  }

  /** A part's WebVTT captions, to whoever may play the part. */
  async captions(bookId: string, fullPath: string, user: UserRow | null, ks: string | undefined): Promise<string> {
    const { part } = await this.admit(bookId, fullPath, user, ks);
    const vtt = part.has_captions ? await this.media.captionsOf(part.chapter_id) : null;
    if (vtt === null) throw notFound(MEDIA_SESSION_MESSAGES.noCaptions);
    return vtt;
  }

  /** The title's preview clip, for anyone (reader.md §6: visitors get a preview player). */
  async preview(bookId: string): Promise<MediaFile> {
    const title = await this.mediaTitle(bookId);
    if (!title.preview_path || !title.preview_mime) throw notFound(MEDIA_SESSION_MESSAGES.noPreview);
    return { file: title.preview_path, mime: title.preview_mime };
  }

  /** Whether `ks` is a live session of this account for this title (null: it is not; the reason does not matter). */
  verify(ks: string, user: Pick<UserRow, 'uuid'>, bookId: string): boolean {
    const values = this.tokens.open(ks);
    if (!values) return false;
    const [uuid, book, expiresMs] = values;
    return uuid === user.uuid && book === bookId && typeof expiresMs === 'number' && expiresMs > this.now().getTime();
  }

  private async admit(bookId: string, fullPath: string, user: UserRow | null, ks: string | undefined): Promise<{ title: TitleRow; part: MediaPart }> {
    const title = await this.mediaTitle(bookId);
    const part = await this.partOf(title, fullPath);
    if (!part) throw notFound(MEDIA_SESSION_MESSAGES.partNotFound);
    // A sample or public part plays as its chapter reads, without a session; but the only part of a title is never
    // free in full (policies/reading.ts "bounded"): those who may only sample it get the preview clip.
    if (part.is_public || (part.as_sample && part.parts > 1)) return { title, part };
    // The rights are checked again on every request (the policy's rule: admins, teams, a cancelled account's paid
    // period), so a session outlives neither the account's rights nor its sign-in.
    if (!user || !ks || !this.verify(ks, user, title.book_id) || !hasLiveSubscription(user, this.now())) {
      throw forbidden(MEDIA_SESSION_MESSAGES.sessionInvalid);
    }
    return { title, part };
  }

  private async partOf(title: TitleRow, fullPath: string): Promise<MediaPart | undefined> {
    if (!this.cache) return this.media.partOf(title.id, fullPath);
    const key = CatalogCache.chapterKey(title.book_id, fullPath);
    const cached = this.cache.mediaParts.get(key);
    if (cached) return cached;
    const generation = this.cache.generation;
    const part = await this.media.partOf(title.id, fullPath);
    // a new edition made meanwhile must not be answered with this edition's part
    if (part && this.cache.generation === generation) this.cache.mediaParts.set(key, part);
    return part;
  }

  private async mediaTitle(bookId: string): Promise<TitleRow> {
    const title = await this.catalog.requireTitle(bookId);
    if (!isMediaFormat(title.content_format)) throw notFound(MEDIA_SESSION_MESSAGES.notMedia);
    return title;
  }
}
