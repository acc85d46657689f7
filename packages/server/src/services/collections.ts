/**
 * Playlists (collections) and the queue, which is the user's default playlist (library-playlists-account.md
 * §1, §4, §5). Every call is scoped to its user: another user's playlist does not exist for you (404).
 * Each change bumps the user's collections version, which is the list's ETag.
 */
import { randomUUID } from 'node:crypto';
import {
  type Collection,
  type CollectionHolding,
  type CollectionSummary,
  normalizeContentUri,
  PLAYLIST_MESSAGES,
  type QueueEntry,
  sortPlaylists,
  validatePlaylist,
} from '@lectern/core';
import type { CollectionRow, UserRow } from '../db/schema.ts';
import { AppError, badRequest, notFound } from '../errors.ts';
import type { CatalogRepository } from '../repositories/catalog.ts';
import type { CollectionsRepository } from '../repositories/collections.ts';
import type { ContentResolver } from './content-resolver.ts';
import { ReadCache } from '../util/cache.ts';
import type { ServerChanges } from './server-changes.ts';

export const QUEUE_NAME = 'Queue';
/**
 * How long a user's version counter (the lists' ETag) is kept. A change made here is told to the other server
 * processes, which forget the counter at their next poll (services/server-changes.ts): none answers 304 for a list
 * changed elsewhere once its poll has run. The time limit is a backstop for a poll that failed.
 */
const VERSION_CACHE_MS = 5_000;
/** What the serialised lists kept in memory may weigh together (a heavy user's list is a few hundred KB). */
const LIST_CACHE_BYTES = 32 * 1024 * 1024;

type User = Pick<UserRow, 'id'>;

export class CollectionsService {
  private readonly versions = new ReadCache<number, number>(50_000, VERSION_CACHE_MS);
  /** the serialised list by user, valid while the ETag it was built under is current; bounded in bytes */
  private readonly lists = new ReadCache<number, { etag: string; body: Buffer }>(5_000, 60_000, {
    maxBytes: LIST_CACHE_BYTES,
    sizeOf: (list) => list.body.byteLength,
  });
  /** lists being built, by ETag (user and version): many asking at once for one list share one build */
  private readonly builds = new ReadCache<string, { etag: string; body: Buffer }>(0, 0);

  constructor(
    private readonly collections: CollectionsRepository,
    private readonly catalog: CatalogRepository,
    private readonly resolver: ContentResolver,
    private readonly now: () => Date = () => new Date(),
    /** where a change of a user's playlists is told to the other server processes (null: one process alone) */
    private readonly changes: Pick<ServerChanges, 'record'> | null = null,
  ) {}

  /** Forgets a user's version counter in this process (their playlists changed on another server). */
  forgetUserHere(userId: number): void {
    this.versions.delete(userId);
  }

  /** Forgets every version counter here (a title's new edition elsewhere moved the versions of those holding it). */
  forgetAllHere(): void {
    this.versions.clear();
  }

  /** The list's ETag; cheap (cached counter) so that a 304 costs almost nothing. */
  async etag(user: User): Promise<string> {
    const version = await this.versions.getOrLoad(user.id, () => this.collections.version(user.id));
    return `W/"collections-${user.id}-${version}"`;
  }

  /**
   * The list as JSON bytes with its ETag; rebuilt only when the user's playlists changed, and built once however
   * many ask for it at the same time (single flight by ETag: 200 requests at once each rebuilt it before).
   */
  async listJson(user: User): Promise<{ etag: string; body: Buffer }> {
    await this.ensureQueue(user);
    const etag = await this.etag(user);
    const cached = this.lists.get(user.id);
    if (cached?.etag === etag) return cached;
    return this.builds.loadOnce(
      etag,
      async () => ({ etag, body: Buffer.from(JSON.stringify(await this.list(user))) }),
      (fresh) => this.lists.set(user.id, fresh),
    );
  }

  /**
   * The light list (`?content=none`): each playlist's fields without its items, with their count. Its own ETag (a
   * client holding one form must never be answered 304 for the other), from the same version counter.
   */
  async summaryEtag(user: User): Promise<string> {
    const version = await this.versions.getOrLoad(user.id, () => this.collections.version(user.id));
    return `W/"collections-summary-${user.id}-${version}"`;
  }

  async summaryJson(user: User): Promise<{ etag: string; body: Buffer }> {
    await this.ensureQueue(user);
    const etag = await this.summaryEtag(user);
    return this.builds.loadOnce(etag, async () => ({ etag, body: Buffer.from(JSON.stringify(await this.summaries(user))) }));
  }

  async summaries(user: User): Promise<CollectionSummary[]> {
    await this.ensureQueue(user);
    const [rows, counts] = await Promise.all([this.collections.listForUser(user.id), this.collections.itemCounts(user.id)]);
    return sortPlaylists(
      rows.map((r) => {
        const { content: _content, ...fields } = fieldsOf(r, []);
        return { ...fields, content_count: counts.get(r.id) ?? 0 };
      }),
    );
  }

  /**
   * Which playlists hold each address asked about (a title card's "Added to Playlist" and its menu's checks): only
   * what the screen shows. Addresses are normalised as add-content normalises them; one that is not a content
   * address holds nowhere.
   */
  async holding(user: User, uris: string[]): Promise<CollectionHolding> {
    const asked = new Map(uris.map((u) => [u, normalizeContentUri(u)?.apiUrl ?? null]));
    const wanted = [...new Set([...asked.values()].filter((u): u is string => u !== null))];
    const byUrl = new Map<string, string[]>();
    for (const row of await this.collections.holding(user.id, wanted)) byUrl.set(row.api_url, [...(byUrl.get(row.api_url) ?? []), row.collection_id]);
    return { results: Object.fromEntries([...asked].map(([u, apiUrl]) => [u, apiUrl ? (byUrl.get(apiUrl) ?? []) : []])) };
  }

  async list(user: User): Promise<Collection[]> {
    await this.ensureQueue(user);
    const rows = await this.collections.listForUser(user.id);
    return sortPlaylists(await this.serialize(rows));
  }

  async get(user: User, id: string): Promise<Collection> {
    const [collection] = await this.serialize([await this.owned(user, id)]);
    return collection!;
  }

  async create(user: User, input: { name: string; description?: string | null }): Promise<Collection> {
    await this.ensureQueue(user);
    const name = input.name.trim();
    const description = input.description ?? '';
    this.assertValid({ name, description }, await this.collections.listForUser(user.id));
    const now = this.now().toISOString();
    const row: CollectionRow = { id: randomUUID(), user_id: user.id, name, description, is_default: 0, created_at: now, updated_at: now };
    if (!(await this.collections.insert(row))) throw nameTaken();
    await this.changed(user);
    return this.get(user, row.id);
  }

  async update(user: User, id: string, input: { name?: string; description?: string | null }): Promise<Collection> {
    const current = await this.owned(user, id);
    if (current.is_default) throw badRequest(PLAYLIST_MESSAGES.defaultNotEditable);
    const name = input.name === undefined ? current.name : input.name.trim();
    const description = input.description === undefined ? current.description : (input.description ?? '');
    this.assertValid({ name, description }, await this.collections.listForUser(user.id), id);
    if (!(await this.collections.update(id, { name, description, updated_at: this.now().toISOString() }))) throw nameTaken();
    await this.changed(user);
    return this.get(user, id);
  }

  async delete(user: User, id: string): Promise<void> {
    const current = await this.owned(user, id);
    if (current.is_default) throw badRequest(PLAYLIST_MESSAGES.defaultNotEditable);
    await this.collections.delete(id);
    await this.changed(user);
  }

  async addContent(user: User, id: string, uris: string[]): Promise<Collection> {
    await this.owned(user, id);
    const items = uniqueBy(await this.resolver.resolve(uris), (i) => i.apiUrl);
    await this.collections.addItems(
      id,
      items.map((i) => ({ api_url: i.apiUrl, title_id: i.title.id, chapter_id: i.chapter?.id ?? null })),
      this.now().toISOString(),
    );
    await this.changed(user);
    return this.get(user, id);
  }

  async removeContent(user: User, id: string, uris: string[]): Promise<Collection> {
    await this.owned(user, id);
    // Removal is by address; removing what is not there is not an error, but the address must be one of ours.
    const items = await this.resolver.resolve(uris);
    await this.collections.removeItems(id, [...new Set(items.map((i) => i.apiUrl))], this.now().toISOString());
    await this.changed(user);
    return this.get(user, id);
  }

  /**
   * Puts a playlist's items (the queue included) in the order given: the list must hold every item's api_url
   * exactly once, otherwise nothing changes and the 400 names `content`.
   */
  async reorder(user: User, id: string, order: string[]): Promise<Collection> {
    await this.owned(user, id);
    const current = await this.collections.itemUrls(id);
    const given = new Set(order);
    const have = new Set(current);
    const missing = current.filter((u) => !given.has(u));
    const unknown = [...given].filter((u) => !have.has(u));
    const reasons = [
      ...(given.size !== order.length ? ['An item is listed more than once.'] : []),
      ...(missing.length ? [`Missing: ${missing.join(', ')}.`] : []),
      ...(unknown.length ? [`Not in this playlist: ${unknown.join(', ')}.`] : []),
    ];
    if (reasons.length) throw badRequest(PLAYLIST_MESSAGES.orderMismatch, { content: [PLAYLIST_MESSAGES.orderMismatch, ...reasons] });
    await this.collections.setOrder(id, order, this.now().toISOString());
    await this.changed(user);
    return this.get(user, id);
  }

  // ---- the queue: the default playlist seen through /api/v1/queue-simple/ ----

  async queue(user: User): Promise<{ results: QueueEntry[] }> {
    const queue = await this.ensureQueue(user);
    const items = await this.collections.itemsOf([queue.id]);
    return { results: items.map((i) => queueEntry(i.api_url)) };
  }

  async addToQueue(user: User, uris: string[]): Promise<{ results: QueueEntry[] }> {
    const queue = await this.ensureQueue(user);
    await this.addContent(user, queue.id, uris);
    return this.queue(user);
  }

  async removeFromQueue(user: User, uris: string[]): Promise<{ results: QueueEntry[] }> {
    const queue = await this.ensureQueue(user);
    await this.removeContent(user, queue.id, uris);
    return this.queue(user);
  }

  // ---- helpers ----

  private async ensureQueue(user: User): Promise<CollectionRow> {
    const existing = await this.collections.findDefault(user.id);
    if (existing) return existing;
    const now = this.now().toISOString();
    await this.collections.ensureDefault({ id: randomUUID(), user_id: user.id, name: QUEUE_NAME, description: '', is_default: 1, created_at: now, updated_at: now });
    await this.changed(user);
    return (await this.collections.findDefault(user.id))!;
  }

  private async owned(user: User, id: string): Promise<CollectionRow> {
    const row = await this.collections.find(user.id, id);
    if (!row) throw notFound(PLAYLIST_MESSAGES.notFound);
    return row;
  }

  private assertValid(input: { name: string; description: string }, existing: CollectionRow[], selfId?: string): void {
    const errors = validatePlaylist(input, existing, selfId);
    const fields = Object.entries(errors) as [string, string][];
    if (fields.length) throw badRequest(fields.map(([, m]) => m).join(' '), Object.fromEntries(fields.map(([f, m]) => [f, [m]])));
  }

  private async changed(user: User): Promise<void> {
    this.versions.set(user.id, await this.collections.bumpVersion(user.id));
    await this.changes?.record('playlists', user.id);
  }

  private async serialize(rows: CollectionRow[]): Promise<Collection[]> {
    const items = await this.collections.itemsOf(rows.map((r) => r.id));
    const topics = (await this.catalog.extrasFor([...new Set(items.map((i) => i.title_id))])).topics;
    const byCollection = new Map<string, Collection['content']>();
    for (const item of items) {
      const list = byCollection.get(item.collection_id) ?? [];
      list.push({ api_url: item.api_url, metadata: { topics: topics.get(item.title_id) ?? [] } });
      byCollection.set(item.collection_id, list);
    }
    return rows.map((r) => fieldsOf(r, byCollection.get(r.id) ?? []));
  }
}

function fieldsOf(r: CollectionRow, content: Collection['content']): Collection {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    is_default: r.is_default === 1,
    is_owned: true,
    content,
    url: r.is_default ? '/c/' : `/c/collection/${r.id}/`,
    created: r.created_at,
    modified: r.updated_at,
  };
}

function uniqueBy<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((i) => !seen.has(key(i)) && seen.add(key(i)));
}

/** Queue entry (spec §3): url, is_whole_book, natural_key ([book_id] or [book_id, chapter path]). */
function queueEntry(apiUrl: string): QueueEntry {
  const m = /^\/api\/v1\/book\/([^/]+)\/(?:chapter\/(.+))?$/.exec(apiUrl);
  const bookId = m?.[1] ?? apiUrl;
  const chapter = m?.[2] ? decodeURIComponent(m[2]) : null;
  return { url: apiUrl, is_whole_book: chapter === null, natural_key: chapter === null ? [bookId] : [bookId, chapter] };
}

/** Two requests racing to the same name: the unique index refused the second; it gets the spec's message. */
function nameTaken(): AppError {
  return badRequest(PLAYLIST_MESSAGES.nameTaken, { name: [PLAYLIST_MESSAGES.nameTaken] });
}
