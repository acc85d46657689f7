/**
 * Table types for kysely. Both engines store flags as 0/1 integers and times as ISO-8601 text so that the
 * same queries and the same rows work on SQLite and PostgreSQL.
 */
import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

export type Flag = 0 | 1;

export interface UsersTable {
  id: Generated<number>;
  uuid: string;
  email: string;
  username: string;
  password_hash: string;
  status: 'trial' | 'subscriber' | 'expired' | 'cancelled';
  trial_ends_at: string | null;
  team_id: number | null;
  is_admin: Flag;
  is_content_creator: Flag;
  is_preview_creator: Flag;
  created_at: string;
  collections_version: Generated<number>;
}

export interface TeamsTable {
  id: Generated<number>;
  name: string;
  created_at: string;
}

export interface SessionsTable {
  /** sha256 of the cookie value: a leaked database does not leak live sessions */
  id: string;
  /** short public id, shown as session_id to the client */
  public_id: string;
  user_id: number;
  created_at: string;
  expires_at: string;
  user_agent: string | null;
}

export interface TopicsTable {
  id: Generated<number>;
  slug: string;
  name: string;
}

export interface PublishersTable {
  id: Generated<number>;
  slug: string;
  name: string;
}

export interface TitlesTable {
  id: Generated<number>;
  book_id: string;
  title: string;
  title_safe: string;
  description: string | null;
  content_format: string;
  source: string;
  language: string | null;
  issued: string | null;
  identifier: string | null;
  cover_path: string | null;
  cover_media_type: string | null;
  allow_scripts: Flag;
  is_system_book: Flag;
  page_count: number | null;
  file_sha256: string;
  origin: string | null;
  created_at: string;
  /** titleSortKey(title): case folded, a leading The/A/An dropped */
  sort_title: Generated<string>;
  /** authorSortKey(authors): the first author folded; '' sorts last */
  sort_author: Generated<string>;
  /** workKey(title, authors): files of one work share it */
  work_key: Generated<string>;
  /** null when this title stands for its work in the catalog; else the id of the title that does */
  work_title_id: number | null;
}

export interface TitleAuthorsTable {
  title_id: number;
  position: number;
  name: string;
}

export interface TitlePublishersTable {
  title_id: number;
  publisher_id: number;
  position: number;
}

export interface TitleTopicsTable {
  title_id: number;
  topic_id: number;
}

export interface ChaptersTable {
  id: Generated<number>;
  title_id: number;
  full_path: string;
  label: string;
  item_order: number;
  media_type: string;
  content: string;
  /** JSON array of stylesheet URLs */
  stylesheets: string;
  text_length: number;
  as_sample: Flag;
  is_public: Flag;
  /** the bounded sample (opening part) of a one-chapter book's only chapter; null for other chapters */
  sample_content: string | null;
}

export interface ResourcesTable {
  id: Generated<number>;
  title_id: number;
  full_path: string;
  media_type: string;
  size: number;
  /** path below DATA_DIR/content */
  storage_path: string;
  /** a PDF's sample (its first pages) below DATA_DIR/content; null when there is none */
  sample_storage_path: string | null;
  sample_size: number | null;
}

export interface TocEntriesTable {
  id: Generated<number>;
  title_id: number;
  position: number;
  depth: number;
  label: string;
  full_path: string;
  fragment: string | null;
}

export interface CollectionsTable {
  id: string;
  user_id: number;
  name: string;
  description: string;
  is_default: Flag;
  created_at: string;
  updated_at: string;
}

export interface CollectionItemsTable {
  collection_id: string;
  api_url: string;
  title_id: number;
  chapter_id: number | null;
  position: number;
  added_at: string;
}

export interface ChapterProgressTable {
  user_id: number;
  chapter_id: number;
  title_id: number;
  top_percentage: number;
  updated_at: string;
}

export interface UsageEventsTable {
  user_id: number;
  usage_uuid: string;
  chapter_id: number;
  title_id: number;
  start_percentage: number;
  end_percentage: number;
  client_timestamp: string;
  usage_is_complete: Flag;
  is_offline: Flag;
  product: string | null;
  received_at: string;
}

export interface SignInAttemptsTable {
  key: string;
  /** ISO time the current one-minute window began */
  window_start: string;
  count: number;
}

export interface ReadingPositionsTable {
  user_id: number;
  title_id: number;
  chapter_id: number;
  /** the Locator as JSON text (core's locatorSchema) */
  locator: string;
  /** the server's clock when the position was stored */
  updated_at: string;
}

export interface Database {
  sign_in_attempts: SignInAttemptsTable;
  reading_positions: ReadingPositionsTable;
  usage_events: UsageEventsTable;
  collections: CollectionsTable;
  collection_items: CollectionItemsTable;
  chapter_progress: ChapterProgressTable;
  users: UsersTable;
  teams: TeamsTable;
  sessions: SessionsTable;
  topics: TopicsTable;
  publishers: PublishersTable;
  titles: TitlesTable;
  title_authors: TitleAuthorsTable;
  title_publishers: TitlePublishersTable;
  title_topics: TitleTopicsTable;
  chapters: ChaptersTable;
  resources: ResourcesTable;
  toc_entries: TocEntriesTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type TitleRow = Selectable<TitlesTable>;
export type ChapterRow = Selectable<ChaptersTable>;
export type ResourceRow = Selectable<ResourcesTable>;
export type CollectionRow = Selectable<CollectionsTable>;
