/**
 * The home dashboard (docs/decisions.md "The home dashboard"; library-playlists-account.md §2 "Dense home dashboard
 * sections"): each section a row of HOME_ROW_SIZE title cards fed by real data, left out when empty. Signed-in readers
 * get their own rows (continue reading, queue, recommended, trending in their topics); everyone gets what they viewed
 * last (the recently viewed cookie), what is new, popular and picked by the editors, and the topics to browse.
 *
 * Cost: a fixed number of indexed reads per request. The reading-activity rankings (popular, trending) are the
 * same for every reader, so they are computed once per ACTIVITY_TTL_MS (single flight) and filtered in memory.
 */
import {
  type AnnouncementRequest,
  type ContentMetadata,
  HOME_MESSAGES,
  HOME_ROW_SIZE,
  type HomeResponse,
  type HomeSectionKey,
  parseRecentlyViewed,
  POPULAR_DAYS,
  type RecommendationAction,
  TRENDING_DAYS,
  HOME_SECTIONS,
} from '@lectern/core';
import type { AnnouncementRow, TitleRow } from '../db/schema.ts';
import type { Viewer } from '../policies/reading.ts';
import { AppError, fieldError } from '../errors.ts';
import type { CatalogRepository } from '../repositories/catalog.ts';
import type { HomeRepository } from '../repositories/home.ts';
import { listingKeys } from '../repositories/listings.ts';
import type { CatalogService } from './catalog.ts';
import { ReadCache } from '../util/cache.ts';
import type { ServerChanges } from './server-changes.ts';


/** How long the popular and trending rankings are reused; how many titles each keeps for filtering. */
const ACTIVITY_TTL_MS = 5 * 60_000;
/** How long the newest titles of a listing are kept for the homes of everyone (HomeService.newestCache). */
const NEWEST_TTL_MS = 60_000;
const ACTIVITY_DEPTH = 200;
/** Recommendations look at the newest titles of at most this many of the reader's topics, this many each. */
const RECOMMEND_TOPICS = 5;
const RECOMMEND_PER_TOPIC = 20;
const TOPICS_SHOWN = 12;
const ANNOUNCEMENTS_SHOWN = 3;
/** Announcements on now and to come, kept for choosing by time (far more than an operator schedules at once). */
const ANNOUNCEMENTS_KEPT = 100;
const DAY_MS = 86_400_000;
/** The order of the rows on the page: core's list of the home's sections (§2), the announcements aside. */
const SECTION_ORDER: readonly HomeSectionKey[] = HOME_SECTIONS.filter((key) => key !== 'announcements');
/**
 * Which row keeps a title that several rows would show (docs/decisions.md, "One title, one row of the home"): the
 * reader's own rows first, then the curated one, then the rows of one kind, and last the rows any title fits.
 */
export const SECTION_PRECEDENCE: readonly HomeSectionKey[] = [
  'continue_reading',
  'queue',
  'last_viewed',
  'recommended',
  'trending_in_your_topics',
  'editors_picks',
  'popular_videos',
  'audio_books',
  'case_studies',
  'popular',
  'new',
];
/** Candidates read per row: enough that a row still fills when every row before it took other titles of its list. */
const CANDIDATES = HOME_ROW_SIZE * SECTION_ORDER.length;

/** Each row's first HOME_ROW_SIZE candidates that no row of higher precedence took. */
function distinctRows(candidates: ReadonlyMap<HomeSectionKey, readonly TitleRow[]>): Map<HomeSectionKey, TitleRow[]> {
  const taken = new Set<number>();
  const out = new Map<HomeSectionKey, TitleRow[]>();
  for (const key of SECTION_PRECEDENCE) {
    const row: TitleRow[] = [];
    for (const t of candidates.get(key) ?? []) {
      if (row.length === HOME_ROW_SIZE) break;
      if (taken.has(t.id)) continue;
      taken.add(t.id);
      row.push(t);
    }
    out.set(key, row);
  }
  return out;
}

interface Activity {
  /** standing title ids, most read first */
  ids: number[];
  /** their topics */
  topics: Map<number, number[]>;
  /** their content formats (popular videos and audio books filter on it without loading the titles) */
  formats: Map<number, string>;
}

export class HomeService {
  private readonly activity = new ReadCache<string, Activity>(4, ACTIVITY_TTL_MS);
  /**
   * The newest titles of a listing (the library, a format, a topic): the same for every reader, asked for by every
   * home; kept a minute, and keyed on the catalog's additions so an import here shows at once.
   */
  private readonly newestCache = new ReadCache<string, TitleRow[]>(256, NEWEST_TTL_MS);
  /**
   * Editors' picks and the announcements not over yet, likewise the same for every home: kept a minute, dropped at
   * once when this process changes them (`edits`), and by the others at their next poll (services/server-changes.ts;
   * a change from the command line shows within the minute). Announcements are kept with those still to come and chosen by time on every request, so one
   * starts and ends on time.
   */
  private readonly picksCache = new ReadCache<string, TitleRow[]>(2, NEWEST_TTL_MS);
  private readonly announcementsCache = new ReadCache<string, AnnouncementRow[]>(2, NEWEST_TTL_MS);
  private edits = 0;
  /** The topics to browse with their counts, likewise. */
  private readonly topicsCache = new ReadCache<string, Awaited<ReturnType<CatalogService['topics']>>>(2, NEWEST_TTL_MS);

  constructor(
    private readonly home: HomeRepository,
    private readonly catalog: CatalogRepository,
    private readonly cards: Pick<CatalogService, 'cards' | 'topics' | 'requireTitle'>,
    private readonly now: () => Date = () => new Date(),
    /** where a change of the picks or announcements is told to the other server processes (null: one process alone) */
    private readonly changes: Pick<ServerChanges, 'record'> | null = null,
  ) {}

  /** The picks or announcements changed on another server process: what is kept of them is read again. */
  forgetEditsHere(): void {
    this.edits++;
  }

  private async edited(): Promise<void> {
    this.edits++;
    await this.changes?.record('home', '');
  }

  async dashboard(viewer: Viewer, recentlyViewed: string | undefined): Promise<HomeResponse> {
    // Each row is drawn from a deeper list of candidates: a title another row took is skipped (one title, one row).
    const depth = CANDIDATES;
    const all = listingKeys.all();
    const [announcements, lastViewed, fresh, picks, popular, videos, audio, caseStudies, topics, own] = await Promise.all([
      this.activeAnnouncements(),
      this.recentlyViewed(recentlyViewed, depth),
      this.newest(all, depth),
      this.picksCache.getOrLoad(`picks ${this.edits} ${this.catalog.titlesAdded}`, () => this.home.editorsPicks(depth)),
      this.popular(null, depth),
      this.popularOrNewest('video', depth),
      this.popularOrNewest('audio', depth),
      this.topicNewest('case-studies', depth),
      this.topicsCache.getOrLoad(`topics ${this.catalog.titlesAdded}`, () => this.cards.topics()),
      viewer ? this.readerRows(viewer.id) : null,
    ]);
    const candidates = new Map<HomeSectionKey, TitleRow[]>([
      ['continue_reading', own?.continueReading ?? []],
      ['queue', own?.queue ?? []],
      ['last_viewed', lastViewed],
      ['new', fresh],
      ['recommended', own?.recommended.rows ?? []],
      ['editors_picks', picks],
      ['popular', popular],
      ['trending_in_your_topics', own?.trending ?? []],
      ['popular_videos', videos],
      ['audio_books', audio],
      ['case_studies', caseStudies],
    ]);
    const rows = distinctRows(candidates);
    const sections: [HomeSectionKey, TitleRow[], string?][] = SECTION_ORDER.map((key) => [key, rows.get(key) ?? [], key === 'recommended' ? own?.recommended.system : undefined]);
    // One pass for every card on the page: continue_url and progress come with a fixed number of queries.
    const shown = sections.filter(([, rows]) => rows.length > 0);
    const unique = [...new Map(shown.flatMap(([, rows]) => rows).map((r) => [r.id, r])).values()];
    const metadata = new Map<number, ContentMetadata>();
    (await this.cards.cards(unique, viewer)).forEach((m, i) => metadata.set(unique[i]!.id, m));
    return {
      announcements: announcements.map(toAnnouncement),
      sections: shown.map(([key, rows, system]) => ({
        key,
        heading: HOME_MESSAGES.headings[key],
        titles: rows.map((r) => metadata.get(r.id)!),
        ...(system ? { recommender_system: system } : {}),
      })),
      topics: [...topics.results].sort((a, b) => b.count - a.count || a.name.localeCompare(b.name)).slice(0, TOPICS_SHOWN),
    };
  }

  /** library-playlists-account.md §7 POST /r/api/: kept per reader; a rejected title is never recommended again. */
  async recordAction(user: NonNullable<Viewer>, action: RecommendationAction): Promise<void> {
    const title = await this.cards.requireTitle(action.title_id);
    await this.home.recordAction({
      user_id: user.id,
      title_id: title.id,
      action: action.action,
      client_type: action.client_type,
      context: action.context,
      recommender_system: action.recommender_system,
      recommendation_position: action.recommendation_position,
      at: this.now().toISOString(),
    });
  }

  // ---- operators ----

  async editorsPicks(): Promise<{ book_ids: string[] }> {
    return { book_ids: (await this.home.editorsPicks(1000)).map((t) => t.book_id) };
  }

  /** Replaces the picks, in this order; every id must name a title, or nothing changes (400 naming the id). */
  async setEditorsPicks(bookIds: string[]): Promise<{ book_ids: string[] }> {
    const unique = [...new Set(bookIds)];
    const found = new Map((await this.catalog.findTitlesByBookIds(unique)).map((t) => [t.book_id, t]));
    const missing = unique.find((id) => !found.has(id));
    if (missing !== undefined) throw fieldError('book_ids', HOME_MESSAGES.unknownBook(missing));
    await this.home.setEditorsPicks(unique.map((id) => found.get(id)!.id), this.now().toISOString());
    await this.edited();
    return { book_ids: unique };
  }

  async announcements() {
    return { results: (await this.home.listAnnouncements()).map(toAdminAnnouncement) };
  }

  async addAnnouncement(request: AnnouncementRequest) {
    const now = this.now().toISOString();
    const startsAt = request.starts_at ? new Date(request.starts_at).toISOString() : now;
    const endsAt = request.ends_at ? new Date(request.ends_at).toISOString() : null;
    if (endsAt !== null && endsAt <= startsAt) throw fieldError('ends_at', 'ends_at must be after starts_at');
    const row = await this.home.addAnnouncement({ message: request.message, url: request.url ?? null, starts_at: startsAt, ends_at: endsAt, created_at: now });
    await this.edited();
    return toAdminAnnouncement(row);
  }

  async removeAnnouncement(id: number): Promise<void> {
    if (!(await this.home.deleteAnnouncement(id))) throw new AppError(404, HOME_MESSAGES.announcementNotFound);
    await this.edited();
  }

  /** The announcements on now, the latest started first (chosen from the cached ones not over: see above). */
  private async activeAnnouncements(): Promise<AnnouncementRow[]> {
    const now = this.now().toISOString();
    const notOver = await this.announcementsCache.getOrLoad(`announcements ${this.edits}`, () => this.home.announcementsNotOver(now, ANNOUNCEMENTS_KEPT));
    return notOver.filter((a) => a.starts_at <= now && (a.ends_at === null || a.ends_at > now)).slice(0, ANNOUNCEMENTS_SHOWN);
  }

  // ---- sections ----

  private async readerRows(userId: number) {
    const facts = await this.home.readerFacts(userId, CANDIDATES, RECOMMEND_TOPICS);
    // Topics the reader chose after registering; failing those, the topics of what they read lately.
    const topics = facts.chosenTopics.length ? facts.chosenTopics : facts.readTopics;
    const [continueReading, queue, recommended, trending] = await Promise.all([
      this.titlesInOrder(facts.positions),
      this.titlesInOrder(facts.queue),
      this.recommend(userId, topics, facts.seen),
      this.trending(topics),
    ]);
    return { continueReading, queue, recommended, trending };
  }

  /**
   * Titles for a reader: in their topics (most read first, then the newest of each topic), or the most read and
   * newest of the library when they have no topics yet; never one they read, listed or rejected (`seen`, or asked
   * about the candidates when the reader has too many of those to fetch whole).
   */
  private async recommend(userId: number, topicIds: number[], seen: Set<number> | null): Promise<{ rows: TitleRow[]; system: string }> {
    const activity = await this.activityOf(POPULAR_DAYS);
    const system = topicIds.length ? 'topics' : 'popular';
    const wanted = new Set(topicIds);
    const popularIds = topicIds.length ? activity.ids.filter((id) => activity.topics.get(id)?.some((t) => wanted.has(t))) : activity.ids;
    const listings = topicIds.length ? topicIds.slice(0, RECOMMEND_TOPICS).map(listingKeys.topic) : [listingKeys.all()];
    const newest = await Promise.all(listings.map((key) => this.newest(key, RECOMMEND_PER_TOPIC)));
    const byId = new Map<number, TitleRow>(newest.flat().map((t) => [t.id, t]));
    const candidates = [...new Set([...popularIds.slice(0, 50), ...newest.flat().map((t) => t.id)])];
    const excluded = seen ?? (await this.home.seenOrRejected(userId, candidates));
    const chosen = candidates.filter((id) => !excluded.has(id)).slice(0, CANDIDATES);
    const missing = chosen.filter((id) => !byId.has(id));
    for (const t of await this.catalog.findTitlesByIds(missing)) byId.set(t.id, t);
    return { rows: chosen.map((id) => byId.get(id)).filter((t): t is TitleRow => t !== undefined), system };
  }

  private async trending(topicIds: number[]): Promise<TitleRow[]> {
    if (topicIds.length === 0) return [];
    const activity = await this.activityOf(TRENDING_DAYS);
    const wanted = new Set(topicIds);
    return this.titlesInOrder(activity.ids.filter((id) => activity.topics.get(id)?.some((t) => wanted.has(t))).slice(0, CANDIDATES));
  }

  /** The most read titles of the last POPULAR_DAYS, within a format when one is given. */
  private async popular(format: string | null, limit: number): Promise<TitleRow[]> {
    const activity = await this.activityOf(POPULAR_DAYS);
    const ids = format ? activity.ids.filter((id) => activity.formats.get(id) === format) : activity.ids;
    return this.titlesInOrder(ids.slice(0, limit));
  }

  /** Popular titles of a format, filled up with its newest (a library with few readers still shows its videos). */
  private async popularOrNewest(format: string, limit: number): Promise<TitleRow[]> {
    const [popular, newest] = await Promise.all([this.popular(format, limit), this.newest(listingKeys.format(format), limit)]);
    return [...new Map([...popular, ...newest].map((t) => [t.id, t])).values()].slice(0, limit);
  }

  private async topicNewest(slug: string, limit: number): Promise<TitleRow[]> {
    return this.newestCache.getOrLoad(`topic ${slug} ${limit} ${this.catalog.titlesAdded}`, async () => {
      const listing = await this.catalog.listingOf({ topicSlug: slug });
      return listing ? this.catalog.listPage(listing, 'recent', limit) : [];
    });
  }

  private newest(key: string, limit: number): Promise<TitleRow[]> {
    return this.newestCache.getOrLoad(`${key} ${limit} ${this.catalog.titlesAdded}`, () => this.catalog.listPage({ key, alsoPublisherId: null }, 'recent', limit));
  }

  private async recentlyViewed(cookie: string | undefined, limit: number): Promise<TitleRow[]> {
    const ids = parseRecentlyViewed(cookie).map((e) => e.id);
    if (ids.length === 0) return [];
    const found = new Map((await this.catalog.findTitlesByBookIds(ids)).map((t) => [t.book_id, t]));
    return ids.flatMap((id) => found.get(id) ?? []).slice(0, limit);
  }

  private activityOf(days: number): Promise<Activity> {
    return this.activity.getOrLoad(String(days), async () => {
      const since = new Date(this.now().getTime() - days * DAY_MS).toISOString();
      const ids = (await this.home.mostRead(since, ACTIVITY_DEPTH)).map((r) => r.titleId);
      const [topics, formats] = await Promise.all([this.home.topicIdsOf(ids), this.home.formatsOf(ids)]);
      return { ids, topics, formats };
    });
  }

  private async titlesInOrder(ids: number[]): Promise<TitleRow[]> {
    if (ids.length === 0) return [];
    const found = new Map((await this.catalog.findTitlesByIds(ids)).map((t) => [t.id, t]));
    return ids.flatMap((id) => found.get(id) ?? []);
  }
}

function toAnnouncement(row: AnnouncementRow): HomeResponse['announcements'][number] {
  return { id: String(row.id), message: row.message, url: row.url };
}

function toAdminAnnouncement(row: AnnouncementRow) {
  return { ...toAnnouncement(row), starts_at: row.starts_at, ends_at: row.ends_at, created_at: row.created_at };
}
