/**
 * Scripted titles on their own origin (issue 12; docs/decisions.md "Scripted titles"). A title an operator allowed
 * to run scripts is read in a frame whose page comes from SCRIPTED_ORIGIN, a second host name with none of the app's
 * cookies. The reader asks the app for the frame's address (the signed-in reader, a chapter they may read); the
 * address carries a capability token — the reader's session (its public id, never the secret), the book, an
 * expiry, an HMAC — and the scripted origin checks it, and the session and the reader's rights, on every file.
 * Signing out or losing the subscription ends the frame's access as it ends the app's.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { paths, SCRIPTED_FRAME_TTL_MS, type ScriptedFrame } from '@lectern/core';
import { notFound } from '../errors.ts';
import type { SessionsRepository, SessionUser } from '../repositories/sessions.ts';
import type { SignedIn } from './auth.ts';
import type { CatalogService, ChapterOrResource } from './catalog.ts';

/** What a frame's token names, once checked. */
export interface FrameGrant {
  sessionPublicId: string;
  bookId: string;
  expiresMs: number;
}

export class ScriptedFrames {
  constructor(
    private readonly secret: string,
    /** the scripted origin; null: not configured, no frame is ever given */
    readonly origin: string | null,
    private readonly catalog: CatalogService,
    private readonly sessions: Pick<SessionsRepository, 'findLiveByPublicId'>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private mac(payload: string): string {
    return createHmac('sha256', this.secret).update(`scripted-frame|${payload}`).digest('base64url');
  }

  issueToken(grant: FrameGrant): string {
    const payload = Buffer.from(JSON.stringify([grant.sessionPublicId, grant.bookId, grant.expiresMs])).toString('base64url');
    return `${payload}.${this.mac(payload)}`;
  }

  /** The grant a token carries, or null when it is malformed, forged or expired. */
  verifyToken(token: string): FrameGrant | null {
    const [payload, mac, extra] = token.split('.');
    if (!payload || !mac || extra !== undefined || token.length > 600) return null;
    const expected = Buffer.from(this.mac(payload));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    try {
      const [sessionPublicId, bookId, expiresMs] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[];
      if (typeof sessionPublicId !== 'string' || typeof bookId !== 'string' || typeof expiresMs !== 'number') return null;
      if (expiresMs <= this.now().getTime()) return null;
      return { sessionPublicId, bookId, expiresMs };
    } catch {
      return null;
    }
  }

  /**
   * The frame's address for a chapter of a scripted title the signed-in reader may read (the sample of it, when
   * that is what they may read). 404 when there is no scripted origin, the title may not run scripts, or there is
   * no such chapter; the chapter's own refusal (401/403) when they may not read it.
   */
  async frameFor(signedIn: SignedIn, bookId: string, fullPath: string): Promise<ScriptedFrame> {
    if (!this.origin) throw notFound('This server runs no book scripts.');
    const title = await this.catalog.requireTitle(bookId);
    if (title.allow_scripts !== 1) throw notFound('This book does not run scripts.');
    const found = await this.catalog.chapterOrResource(bookId, fullPath, signedIn.user);
    if (found.kind !== 'chapter') throw notFound('We could not find that chapter.');
    const token = this.issueToken({ sessionPublicId: signedIn.session.public_id, bookId: title.book_id, expiresMs: this.now().getTime() + SCRIPTED_FRAME_TTL_MS });
    return { url: `${this.origin}${framePath(token, found.chapter.full_path)}`, origin: this.origin };
  }

  /**
   * A file of the book behind a frame's token, as the reader may have it now: null when the token, the session,
   * the title's permission to run scripts or the file is not (or no longer) there.
   */
  async open(token: string, fullPath: string): Promise<{ found: ChapterOrResource; user: SessionUser; bookId: string } | null> {
    const grant = this.verifyToken(token);
    if (!grant) return null;
    const live = await this.sessions.findLiveByPublicId(grant.sessionPublicId, this.now().toISOString());
    if (!live) return null;
    try {
      const title = await this.catalog.requireTitle(grant.bookId);
      if (title.allow_scripts !== 1) return null;
      return { found: await this.catalog.chapterOrResource(grant.bookId, fullPath, live.user), user: live.user, bookId: title.book_id };
    } catch {
      // no such file, or a chapter this reader may not read: the frame's origin says only "not found"
      return null;
    }
  }
}

/** Where a book file is on the scripted origin: the book's own folders below the token. */
export function framePath(token: string, fullPath: string): string {
  return `/b/${token}/${fullPath.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * Stored chapters and stylesheets name the book's files by the app's address for them
 * (`/api/v1/book/{id}/chapter/{path}`); on the scripted origin the same files are below the token.
 */
export function onScriptedOrigin(text: string, bookId: string, token: string): string {
  return text.split(paths.chapterApiPrefix(bookId)).join(`/b/${token}/`);
}
