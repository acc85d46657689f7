/**
 * Reading positions that follow the account (GET/PUT /api/v1/book/{book_id}/position/), and the rule of where a
 * title card's Start / Continue leads (continue_url).
 *
 * Conflict rule (docs/decisions.md): last writer wins by the server's clock. The time a write arrives is the only
 * time compared, so a device whose clock is wrong can neither win nor lose unfairly; clients avoid sending stale
 * positions themselves (they send only a position the reader moved to since their last write).
 */
import { type Locator, locatorSchema, paths, type ReadingPosition } from '@lectern/core';
import type { TitleRow, UserRow } from '../db/schema.ts';
import { fieldError } from '../errors.ts';
import { assertCanReadChapter, hasLiveSubscription } from '../policies/reading.ts';
import type { CatalogRepository } from '../repositories/catalog.ts';
import type { EntryChapters, PositionChapter, PositionsRepository, StoredPosition } from '../repositories/positions.ts';
import type { CatalogService } from './catalog.ts';

type Reader = Pick<UserRow, 'id' | 'status' | 'trial_ends_at' | 'is_admin' | 'is_content_creator' | 'is_preview_creator'>;

export class PositionsService {
  constructor(
    private readonly catalogService: Pick<CatalogService, 'requireTitle'>,
    private readonly catalog: Pick<CatalogRepository, 'findChapter'>,
    private readonly positions: PositionsRepository,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async get(user: Reader, bookId: string): Promise<{ position: ReadingPosition | null }> {
    const title = await this.catalogService.requireTitle(bookId);
    const stored = await this.positions.find(user.id, title.id);
    return { position: stored ? toPosition(stored) : null };
  }

  /** Stores where the reader is: the chapter must be one of the book's and one this reader may read. */
  async put(user: Reader, bookId: string, locator: Locator): Promise<{ position: ReadingPosition }> {
    const title = await this.catalogService.requireTitle(bookId);
    const chapter = await this.catalog.findChapter(title.id, locator.href);
    if (!chapter) throw fieldError('locator.href', `${locator.href} is not a chapter of this book.`);
    assertCanReadChapter(user, chapter);
    const stored = await this.positions.upsert({
      user_id: user.id,
      title_id: title.id,
      chapter_id: chapter.id,
      locator: JSON.stringify(locator),
      updated_at: this.now().toISOString(),
    });
    return { position: toPosition(stored) };
  }
}

function toPosition(stored: StoredPosition): ReadingPosition {
  // Stored positions were validated on the way in; parsing again keeps a hand-edited row from reaching a client.
  const parsed = locatorSchema.safeParse(JSON.parse(stored.locator));
  return { locator: parsed.success ? parsed.data : { href: '', progression: 0 }, updated_at: stored.updated_at };
}

/** Where Start / Continue leads, and whether it resumes a stored position (the card then says Continue). */
export interface ContinueTarget {
  url: string;
  resumes: boolean;
}

/**
 * The continue_url rule (docs/decisions.md), in one place:
 * 1. the chapter of the reader's stored position, when this reader may read it;
 * 2. for anyone who may not read the whole book (an anonymous visitor, an expired or cancelled account), the sample
 *    chapter, else the first public chapter, else the title page (nothing of the book is open to them);
 * 3. the first chapter.
 */
export function continueTarget(
  title: Pick<TitleRow, 'title_safe' | 'book_id'>,
  reader: Reader | null,
  position: PositionChapter | undefined,
  entry: EntryChapters | undefined,
): ContinueTarget {
  const fullAccess = reader !== null && hasLiveSubscription(reader);
  if (position && (fullAccess || position.as_sample || position.is_public)) {
    return { url: paths.reader(title.title_safe, title.book_id, position.full_path), resumes: true };
  }
  if (!fullAccess) {
    const open = entry?.sample ?? entry?.open;
    return { url: open ? paths.reader(title.title_safe, title.book_id, open) : paths.titlePage(title.book_id), resumes: false };
  }
  return { url: paths.reader(title.title_safe, title.book_id, entry?.first ?? undefined), resumes: false };
}
