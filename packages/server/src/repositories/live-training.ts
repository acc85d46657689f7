/**
 * Live training's rows (migration 0020): courses, their topics, events and presenters. Times are ISO UTC text
 * (toISOString), so comparing them as text compares them in time.
 */
import type { Kysely } from 'kysely';
import type { Database, LiveCourseRow, LiveEventRow } from '../db/schema.ts';

export interface LivePresenterRow {
  event_id: number;
  name: string;
  headshot_url: string | null;
}

export class LiveTrainingRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * The current event at `now`: an event in progress (the one that started first), else the next one starting
   * no later than `soonUntil`. In start order, events in progress come before those to come.
   */
  currentEvent(now: string, soonUntil: string): Promise<LiveEventRow | undefined> {
    return this.db
      .selectFrom('live_events')
      .selectAll()
      .where('end_at', '>', now)
      .where('start_at', '<=', soonUntil)
      .orderBy('start_at')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
  }

  /** Courses, newest first; only those with this topic, or only this one, when asked. */
  courses(filter: { topicSlug?: string; courseId?: number } = {}): Promise<LiveCourseRow[]> {
    let q = this.db.selectFrom('live_courses').selectAll('live_courses');
    if (filter.courseId !== undefined) q = q.where('live_courses.id', '=', filter.courseId);
    if (filter.topicSlug !== undefined) {
      const slug = filter.topicSlug;
      q = q.where((eb) =>
        eb.exists(eb.selectFrom('live_course_topics as t').select('t.course_id').whereRef('t.course_id', '=', 'live_courses.id').where('t.slug', '=', slug)),
      );
    }
    return q.orderBy('live_courses.id', 'desc').execute();
  }

  courseById(id: number): Promise<LiveCourseRow | undefined> {
    return this.db.selectFrom('live_courses').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** These courses' topics, by name. */
  topicsOf(courseIds: number[]): Promise<{ course_id: number; slug: string; name: string }[]> {
    if (!courseIds.length) return Promise.resolve([]);
    return this.db.selectFrom('live_course_topics').selectAll().where('course_id', 'in', courseIds).orderBy('name').orderBy('slug').execute();
  }

  /** Every topic some course has, once, by name. */
  allTopics(): Promise<{ slug: string; name: string }[]> {
    return this.db
      .selectFrom('live_course_topics')
      .select(['slug', (eb) => eb.fn.min('name').as('name')])
      .groupBy('slug')
      .orderBy('name')
      .execute();
  }

  /** These courses' events in start order; only those not over at `notOverAt` when given. */
  eventsOf(courseIds: number[], notOverAt: string | null): Promise<LiveEventRow[]> {
    if (!courseIds.length) return Promise.resolve([]);
    let q = this.db.selectFrom('live_events').selectAll().where('course_id', 'in', courseIds);
    if (notOverAt !== null) q = q.where('end_at', '>', notOverAt);
    return q.orderBy('start_at').orderBy('id').execute();
  }

  presentersOf(eventIds: number[]): Promise<LivePresenterRow[]> {
    if (!eventIds.length) return Promise.resolve([]);
    return this.db
      .selectFrom('live_presenters')
      .select(['event_id', 'name', 'headshot_url'])
      .where('event_id', 'in', eventIds)
      .orderBy('event_id')
      .orderBy('position')
      .execute();
  }

  /** A course with its topics, in one transaction; null when the slug is taken (the unique slug settles two at once). */
  addCourse(
    course: { slug: string; title: string; description: string; marketing_image_url: string | null; created_at: string },
    topics: { slug: string; name: string }[],
  ): Promise<LiveCourseRow | null> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx.insertInto('live_courses').values(course).onConflict((oc) => oc.column('slug').doNothing()).returningAll().executeTakeFirst();
      if (!row) return null;
      if (topics.length) await trx.insertInto('live_course_topics').values(topics.map((t) => ({ course_id: row.id, ...t }))).execute();
      return row;
    });
  }

  /** An event with its presenters (in the order given), in one transaction. */
  addEvent(
    event: { course_id: number; start_at: string; end_at: string; join_url: string; created_at: string },
    presenters: { name: string; headshot_url: string | null }[],
  ): Promise<LiveEventRow> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx.insertInto('live_events').values(event).returningAll().executeTakeFirstOrThrow();
      if (presenters.length) {
        await trx
          .insertInto('live_presenters')
          .values(presenters.map((p, position) => ({ event_id: row.id, position, name: p.name, headshot_url: p.headshot_url })))
          .execute();
      }
      return row;
    });
  }

  async deleteCourse(id: number): Promise<boolean> {
    const r = await this.db.deleteFrom('live_courses').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async deleteEvent(id: number): Promise<boolean> {
    const r = await this.db.deleteFrom('live_events').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }
}
