/**
 * Scripted titles on their own origin (docs/decisions.md "Scripted titles"). A title an operator allowed
 * to run scripts is read in a frame whose page comes from SCRIPTED_ORIGIN, a second host name with none of the app's
 * cookies. The reader asks the app for the frame's address (the signed-in reader, a chapter they may read); the
 * address carries a capability token — the reader's session (its public id, never the secret), the book, an
 * expiry, a nonce, an HMAC — and the scripted origin checks it, and the session and the reader's rights, on every file.
 * Signing out or losing the subscription ends the frame's access as it ends the app's.
 *
 * The address alone is not enough (a leaked one worked for anyone, without cookies, for four hours): the
 * first request under a token, within HANDSHAKE_MS of its issue and once only, binds it to that browser with a cookie
 * of the scripted origin (HttpOnly, scoped to the token's path); every later request under the token must carry it.
 * A leaked address is then dead in another browser: already bound, or too old to bind. An answer the browser drops
 * spends the handshake too (nothing here tells a retry from a copy): the reader then asks the app for a new address.
 *
 * One origin per publication (docs/decisions.md "Scripted publications"): when SCRIPTED_ORIGIN names a wildcard host
 * (`http://*.books.example:8081`), each title is read on a host of its own (`originFor`), so one book's scripts cannot
 * read another's storage, and the scripted origin serves a title's files only on that title's host. Without a wildcard,
 * every scripted title shares the one origin (and its storage), as before. Under a wildcard a chapter's iframes are
 * served from a second host of the title's (`framesOriginFor`), under an address of their own, so that an inner page
 * cannot reach the chapter around it (docs/decisions.md "A book's iframes").
 *
 * The reader's consent (docs/decisions.md "Scripted publications"): a title's scripts run only for a reader who said
 * yes to that title (asked once, the answer kept per reader and title, withdrawn from the reader's settings). No frame
 * address is given without it, and the scripted origin checks it on every file as it checks the session: a withdrawn
 * answer ends the frame.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { paths, SCRIPTED_FRAME_TTL_MS, type ScriptedFrame, type ScriptsConsent } from '@lectern/core';
import { forbidden, notFound } from '../errors.ts';
import type { TitleRow } from '../db/schema.ts';
import type { ScriptsConsentsRepository } from '../repositories/scripts-consents.ts';
import type { SessionsRepository, SessionUser } from '../repositories/sessions.ts';
import type { SignedIn } from './auth.ts';
import { FRAME_DOCUMENT_TYPE, type FrameDocument } from '../ingest/frame-document.ts';
import type { CatalogService, ChapterOrResource } from './catalog.ts';
import { SignedTokens } from './signed-tokens.ts';
import { ReadCache } from '../util/cache.ts';

/** A frame document is a chapter's rendering with its list of chapters: far below this. */
const MAX_FRAME_DOCUMENT_BYTES = 64 * 1024 * 1024;

/** What a frame's token names, once checked. */
export interface FrameGrant {
  sessionPublicId: string;
  bookId: string;
  expiresMs: number;
  /** makes each address its own, so that it binds once */
  nonce: string;
  /**
   * Set on an address of a chapter's inner pages (its iframes) on the title's frames host, made when the chapter's
   * page was served (`innerFrames`): when it was made, which starts its handshake's minute. Unset: a chapter's address.
   */
  framesIssuedMs?: number;
  /**
   * With `framesIssuedMs`: the one page the inner address may show (a hash of its path, `documentKey`), so that it
   * opens no other chapter or document of the book (docs/decisions.md "A book's iframes"); the book's other files it
   * may still load.
   */
  document?: string;
}

/** Who serves a page under a token: the title's host (its chapters) or its frames host (its chapters' iframes). */
export type FrameScope = 'chapter' | 'frames';

/** How long after its issue an address may still be bound to a browser: the reader's frame loads it at once. */
export const HANDSHAKE_MS = 60_000;
/**
 * The most handshakes one process remembers (each for its minute): past it the oldest is forgotten, so a book's script
 * that opens frame after frame cannot grow the server's memory without limit.
 */
export const MAX_BOUND = 100_000;
/** The scripted origin's cookie binding a token to the browser that opened it first (path: the token's folder). */
export const BINDING_COOKIE = 'lectern_frame';

/** What the scripted origin sets on the handshake: the cookie binding the token to this browser. */
export interface FrameBinding {
  value: string;
  path: string;
  maxAgeSeconds: number;
}

/** A title's host label under a wildcard scripted origin: stable, DNS-safe, the same book on every process. */
export function publicationLabel(bookId: string): string {
  return `t${labelHash(bookId)}`;
}

/**
 * The label of the host a title's inner pages (its chapters' iframes) are served on under a wildcard origin: the
 * title's own with `f` for `t`, so that an inner page is of another origin than the chapter around it and cannot
 * reach its document (docs/decisions.md "A book's iframes").
 */
export function framesLabel(bookId: string): string {
  return `f${labelHash(bookId)}`;
}

/** What an inner address keeps of the page it frames: short, whatever the path's length. */
export function documentKey(fullPath: string): string {
  return createHash('sha256').update(`frame-document|${fullPath}`).digest('base64url').slice(0, 22);
}

const labelHash = (bookId: string) => createHash('sha256').update(`scripted-origin|${bookId}`).digest('hex').slice(0, 20);

export class ScriptedFrames {
  constructor(
    secret: string,
    /** the scripted origin, or its wildcard pattern (`*.` first in the host); null: not configured, no frame is ever given */
    readonly origin: string | null,
    private readonly catalog: CatalogService,
    private readonly sessions: Pick<SessionsRepository, 'findLiveByPublicId'>,
    private readonly consents: Pick<ScriptsConsentsRepository, 'find' | 'set' | 'remove'>,
    private readonly now: () => Date = () => new Date(),
    maxBound = MAX_BOUND,
  ) {
    this.tokens = new SignedTokens(secret, 'scripted-frame');
    this.bound = new ReadCache<string, true>(maxBound, HANDSHAKE_MS);
  }

  private readonly tokens: SignedTokens;

  /** Whether every title gets an origin of its own (SCRIPTED_ORIGIN's host starts with `*.`). */
  get perPublication(): boolean {
    return this.origin !== null && new URL(this.origin).hostname.startsWith('*.');
  }

  /** The origin a title's frame is served from: its own host under a wildcard, else the one scripted origin. */
  originFor(bookId: string): string {
    if (!this.origin) throw notFound('This server runs no book scripts.');
    return this.perPublication ? this.origin.replace('*', publicationLabel(bookId)) : this.origin;
  }

  /** The origin a title's inner pages are served from: its frames host under a wildcard, else the title's origin. */
  framesOriginFor(bookId: string): string {
    if (!this.origin) throw notFound('This server runs no book scripts.');
    return this.perPublication ? this.origin.replace('*', framesLabel(bookId)) : this.originFor(bookId);
  }

  /** The origin a token's pages are served from. */
  scopeOrigin(bookId: string, scope: FrameScope): string {
    return scope === 'frames' ? this.framesOriginFor(bookId) : this.originFor(bookId);
  }

  /**
   * Where an iframe of `document` on a page served under `token` (admitted already) is framed from: under a wildcard,
   * the title's frames host under an address of its own for that document alone, made now and bound by its own
   * handshake (the binding cookie is the host's: the chapter's does not reach it). Made only when the page is loaded
   * as a frame (`framed`: Sec-Fetch-Dest `iframe`), never for a script's fetch of it, which would hand out addresses
   * nobody opened (docs/decisions.md "A book's iframes"). Without a wildcard, the one origin and the same token
   * (`origin` empty: a path). Null when no frame is to be built: the note stays.
   */
  innerFrames(token: string, document: string, framed: boolean): { origin: string; token: string } | null {
    const grant = this.verifyToken(token);
    if (!grant) return null;
    if (!this.perPublication) return { origin: '', token };
    if (!framed) return null;
    const inner = this.issueToken({ ...grant, nonce: randomBytes(12).toString('base64url'), framesIssuedMs: this.now().getTime(), document: documentKey(document) });
    return { origin: this.framesOriginFor(grant.bookId), token: inner };
  }

  private mac(payload: string): string {
    return this.tokens.mac(payload);
  }

  issueToken(grant: FrameGrant): string {
    const values = [grant.sessionPublicId, grant.bookId, grant.expiresMs, grant.nonce];
    return this.tokens.seal(grant.framesIssuedMs === undefined ? values : [...values, 'frames', grant.framesIssuedMs, grant.document ?? '']);
  }

  /** The grant a token carries, or null when it is malformed, forged or expired. */
  verifyToken(token: string): FrameGrant | null {
    const values = this.tokens.open(token);
    if (!values) return null;
    const [sessionPublicId, bookId, expiresMs, nonce, scope, framesIssuedMs, document] = values;
    if (typeof sessionPublicId !== 'string' || typeof bookId !== 'string' || typeof expiresMs !== 'number' || typeof nonce !== 'string') return null;
    const frames = values.length === 7 && scope === 'frames' && typeof framesIssuedMs === 'number' && typeof document === 'string';
    if (values.length !== 4 && !frames) return null;
    if (expiresMs <= this.now().getTime()) return null;
    return { sessionPublicId, bookId, expiresMs, nonce, ...(frames ? { framesIssuedMs, document } : {}) };
  }

  /**
   * The frame's address for a chapter of a scripted title the signed-in reader may read (the sample of it, when
   * that is what they may read). 404 when there is no scripted origin, the title may not run scripts, or there is
   * no such chapter; the chapter's own refusal (401/403) when they may not read it.
   */
  async frameFor(signedIn: SignedIn, bookId: string, fullPath: string): Promise<ScriptedFrame> {
    const title = await this.scriptedTitle(bookId);
    if ((await this.consents.find(signedIn.user.id, title.id)) !== 1) throw forbidden('Allow this book’s scripts before they run.');
    const found = await this.catalog.chapterOrResource(bookId, fullPath, signedIn.user);
    if (found.kind !== 'chapter') throw notFound('We could not find that chapter.');
    const token = this.issueToken({
      sessionPublicId: signedIn.session.public_id,
      bookId: title.book_id,
      expiresMs: this.now().getTime() + SCRIPTED_FRAME_TTL_MS,
      nonce: randomBytes(12).toString('base64url'),
    });
    const origin = this.originFor(title.book_id);
    return { url: `${origin}${framePath(token, found.chapter.full_path)}`, origin };
  }

  /** A title whose scripts may run here: 404 when there is no scripted origin or the title may not run scripts. */
  private async scriptedTitle(bookId: string): Promise<TitleRow> {
    if (!this.origin) throw notFound('This server runs no book scripts.');
    const title = await this.catalog.requireTitle(bookId);
    if (title.allow_scripts !== 1) throw notFound('This book does not run scripts.');
    return title;
  }

  /** The reader's answer for a scripted title (null: not asked). */
  async consent(userId: number, bookId: string): Promise<ScriptsConsent> {
    const title = await this.scriptedTitle(bookId);
    const allowed = await this.consents.find(userId, title.id);
    return { book_id: title.book_id, decision: allowed === undefined ? null : allowed === 1 ? 'allowed' : 'declined' };
  }

  async answer(userId: number, bookId: string, allow: boolean): Promise<ScriptsConsent> {
    const title = await this.scriptedTitle(bookId);
    await this.consents.set(userId, title.id, allow ? 1 : 0, this.now().toISOString());
    return { book_id: title.book_id, decision: allow ? 'allowed' : 'declined' };
  }

  /** Withdraws the answer: the reader is asked again, and frames already open stop getting the book's files. */
  async withdraw(userId: number, bookId: string): Promise<ScriptsConsent> {
    const title = await this.scriptedTitle(bookId);
    await this.consents.remove(userId, title.id);
    return { book_id: title.book_id, decision: null };
  }

  /**
   * A frame document (docs/decisions.md "A book's iframes") as the reader may have it: only when they may read in
   * full a chapter that shows it (directly or through another frame document), as the chapter's own rules say; the
   * opening part a visitor gets of a one-chapter book does not give its frames. Null otherwise.
   */
  private async readableFrameDocument(bookId: string, file: string, user: SessionUser): Promise<FrameDocument | null> {
    const document = JSON.parse((await this.catalog.readStoredFile(file, MAX_FRAME_DOCUMENT_BYTES)).toString('utf8')) as FrameDocument;
    for (const chapter of document.chapters) {
      const found = await this.catalog.chapterOrResource(bookId, chapter, user).catch(() => null);
      if (found?.kind === 'chapter' && !found.chapter.partial) return document;
    }
    return null;
  }

  /** The cookie value that binds this token to a browser: only the scripted origin's handshake hands it out. */
  private bindingFor(token: string): string {
    return this.mac(`binding|${token}`);
  }

  /**
   * Nonces of tokens bound already: each binds once. Kept for the handshake's minute only (after it the address is too
   * old to bind anyway), at most `maxBound` of them per process, the oldest forgotten first.
   */
  private readonly bound: ReadCache<string, true>;

  /** How many handshakes this process remembers now. */
  get boundCount(): number {
    return this.bound.size;
  }

  /**
   * Whether this request may use the token: it carries the token's binding, or it is the token's first request
   * while the address is fresh (the handshake: the binding to set is answered). Null: refused.
   */
  private admit(token: string, grant: FrameGrant, bindings: readonly string[]): { bind: FrameBinding | null } | null {
    const expected = Buffer.from(this.bindingFor(token));
    // compared as bytes: a cookie of as many characters may be more bytes (timingSafeEqual throws on unequal lengths)
    const matches = (b: string) => {
      const given = Buffer.from(b);
      return given.length === expected.length && timingSafeEqual(given, expected);
    };
    if (bindings.some(matches)) return { bind: null };
    const now = this.now().getTime();
    const issuedMs = grant.framesIssuedMs ?? grant.expiresMs - SCRIPTED_FRAME_TTL_MS;
    if (now > issuedMs + HANDSHAKE_MS || this.bound.get(grant.nonce)) return null;
    this.bound.set(grant.nonce, true);
    return { bind: { value: expected.toString(), path: `/b/${token}/`, maxAgeSeconds: Math.max(1, Math.floor((grant.expiresMs - now) / 1000)) } };
  }

  /**
   * A file of the book behind a frame's token, as the reader may have it now: null when the token, its binding to
   * this browser (a `bindings` cookie value, or the handshake), the session, the title's permission to run scripts or
   * the file is not (or no longer) there. `bind`: the cookie to set, on the handshake. `host`: the request's Host;
   * under a wildcard origin a token opens its title's files only on that title's own host.
   */
  async open(
    token: string,
    fullPath: string,
    bindings: readonly string[] = [],
    host?: string,
  ): Promise<{ found: ChapterOrResource | { kind: 'frame'; document: FrameDocument }; user: SessionUser; bookId: string; scope: FrameScope; bind: FrameBinding | null } | null> {
    const grant = this.verifyToken(token);
    if (!grant) return null;
    const scope: FrameScope = grant.framesIssuedMs === undefined ? 'chapter' : 'frames';
    // a chapter's address opens only on the title's host, its inner pages' only on the title's frames host
    if (this.perPublication && (host ?? '').toLowerCase() !== new URL(this.scopeOrigin(grant.bookId, scope)).host) return null;
    const live = await this.sessions.findLiveByPublicId(grant.sessionPublicId, this.now().toISOString());
    if (!live) return null;
    try {
      const title = await this.catalog.requireTitle(grant.bookId);
      if (title.allow_scripts !== 1) return null;
      if ((await this.consents.find(live.user.id, title.id)) !== 1) return null;
      let found: ChapterOrResource | { kind: 'frame'; document: FrameDocument } = await this.catalog.chapterOrResource(grant.bookId, fullPath, live.user);
      if (found.kind === 'resource' && found.mediaType === FRAME_DOCUMENT_TYPE) {
        const document = await this.readableFrameDocument(grant.bookId, found.file, live.user);
        if (!document) return null;
        found = { kind: 'frame', document };
      }
      // an inner address shows its own document as a page, and no other (the book's other files, as they are)
      if (scope === 'frames' && found.kind !== 'resource' && grant.document !== documentKey(fullPath)) return null;
      // bound last: a request for a file that is not there does not spend the handshake
      const admitted = this.admit(token, grant, bindings);
      if (!admitted) return null;
      return { found, user: live.user, bookId: title.book_id, scope, bind: admitted.bind };
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
