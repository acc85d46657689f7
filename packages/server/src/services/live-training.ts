/**
 * Live training (library-playlists-account.md §3, §4, §6, §7; docs/decisions.md "Live training"): the banner's
 * current event, the courses' statuses for the index and course pages, and the operators' courses and events.
 *
 * Who sees what: everyone sees courses and the banner, except accounts of type Expired (§6), which get no banner
 * (`{}`). The address 'Join now' leads to is given only to callers with a live subscription (a trial, a subscriber,
 * a cancelled account in its paid period, staff); for others `join_url` is null and the banner's button leads to
 * the course page, which tells them how to join.
 */
import {
  type CourseStatusesResponse,
  type CurrentEventResponse,
  LIVE_TRAINING_MESSAGES,
  LIVE_TRAINING_SOON_WINDOW_MS,
  type LiveCourseRequest,
  type LiveCourseStatus,
  type LiveEventRequest,
  liveTrainingPaths,
  slugify,
} from '@lectern/core';
import type { LiveCourseRow, LiveEventRow } from '../db/schema.ts';
import { AppError, fieldError, notFound } from '../errors.ts';
import { hasLiveSubscription, seesLiveTraining, type Viewer } from '../policies/reading.ts';
import type { LivePresenterRow, LiveTrainingRepository } from '../repositories/live-training.ts';


export class LiveTrainingService {
  constructor(
    private readonly repo: LiveTrainingRepository,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** §4: the course of the event in progress, else of the next one starting within the window; `{}` for none. */
  async currentEvent(viewer: Viewer): Promise<CurrentEventResponse> {
    const now = this.clock();
    if (!seesLiveTraining(viewer, now)) return {};
    const event = await this.repo.currentEvent(now.toISOString(), new Date(now.getTime() + LIVE_TRAINING_SOON_WINDOW_MS).toISOString());
    if (!event) return {};
    const course = await this.repo.courseById(event.course_id);
    if (!course) return {};
    const [status] = await this.statuses([course], [event], canJoin(viewer, now));
    return status ?? {};
  }

  /** §7 course statuses (ours): every course, or one topic's or one course, with its events not over yet. */
  async courseStatuses(viewer: Viewer, query: { topic?: string; course_id?: string }): Promise<CourseStatusesResponse> {
    const now = this.clock();
    const courses = await this.repo.courses({ topicSlug: query.topic, courseId: query.course_id === undefined ? undefined : Number(query.course_id) });
    const [events, topics] = await Promise.all([
      this.repo.eventsOf(
        courses.map((c) => c.id),
        now.toISOString(),
      ),
      this.repo.allTopics(),
    ]);
    const results = await this.statuses(courses, events, canJoin(viewer, now));
    // Courses with a session coming first, soonest first; then those with none, newest first.
    const next = (s: LiveCourseStatus) => s.events[0]?.start_datetime ?? '\uffff';
    results.sort((a, b) => (next(a) < next(b) ? -1 : next(a) > next(b) ? 1 : 0));
    return { results, topics };
  }

  // ---- operators ----

  /** Every course with every event, past ones too, join addresses shown. */
  async adminCourses(): Promise<{ results: LiveCourseStatus[] }> {
    const courses = await this.repo.courses();
    const events = await this.repo.eventsOf(
      courses.map((c) => c.id),
      null,
    );
    return { results: await this.statuses(courses, events, true) };
  }

  async addCourse(request: LiveCourseRequest): Promise<LiveCourseStatus> {
    const slug = request.slug ?? slugify(request.title);
    const topics = new Map<string, string>();
    for (const name of request.topics ?? []) topics.set(slugify(name), name);
    const row = await this.repo.addCourse(
      { slug, title: request.title, description: request.description ?? '', marketing_image_url: request.marketing_image_url ?? null, created_at: this.clock().toISOString() },
      [...topics].map(([s, name]) => ({ slug: s, name })),
    );
    // no look first: the insert itself tells whether the slug was taken (two identical requests at once: one adds it)
    if (!row) throw fieldError('slug', LIVE_TRAINING_MESSAGES.slugTaken(slug));
    const [status] = await this.statuses([row], [], true);
    return status!;
  }

  async addEvent(courseId: number, request: LiveEventRequest): Promise<LiveCourseStatus> {
    const course = await this.repo.courseById(courseId);
    if (!course) throw notFound(LIVE_TRAINING_MESSAGES.courseNotFound);
    const event = await this.repo.addEvent(
      {
        course_id: courseId,
        // stored as UTC with a Z whatever offset was given, so text order is time order
        start_at: new Date(request.start_datetime).toISOString(),
        end_at: new Date(request.end_datetime).toISOString(),
        join_url: request.join_url,
        created_at: this.clock().toISOString(),
      },
      (request.presenters ?? []).map((p) => ({ name: p.name, headshot_url: p.headshot_url ?? null })),
    );
    const [status] = await this.statuses([course], [event], true);
    return status!;
  }

  async removeCourse(courseId: number): Promise<void> {
    if (!(await this.repo.deleteCourse(courseId))) throw notFound(LIVE_TRAINING_MESSAGES.courseNotFound);
  }

  async removeEvent(eventId: number): Promise<void> {
    if (!(await this.repo.deleteEvent(eventId))) throw new AppError(404, LIVE_TRAINING_MESSAGES.eventNotFound);
  }

  /** The wire shape of these courses, each with its events among `events` and their presenters. */
  private async statuses(courses: LiveCourseRow[], events: LiveEventRow[], showJoin: boolean): Promise<LiveCourseStatus[]> {
    const [topics, presenters] = await Promise.all([
      this.repo.topicsOf(courses.map((c) => c.id)),
      this.repo.presentersOf(events.map((e) => e.id)),
    ]);
    const byEvent = group(presenters, (p) => p.event_id);
    return courses.map((c) => ({
      slug: c.slug,
      course_id: String(c.id),
      title: c.title,
      description: c.description,
      marketing_image2: c.marketing_image_url,
      url: liveTrainingPaths.course(c.slug, String(c.id)),
      topics: topics.filter((t) => t.course_id === c.id).map((t) => ({ name: t.name, slug: t.slug })),
      events: events
        .filter((e) => e.course_id === c.id)
        .map((e) => ({
          event_id: String(e.id),
          start_datetime: e.start_at,
          end_datetime: e.end_at,
          join_url: showJoin ? e.join_url : null,
          presenters: (byEvent.get(e.id) ?? []).map((p: LivePresenterRow) => ({ name: p.name, headshot_url1: p.headshot_url })),
        })),
    }));
  }
}

/** Who may follow 'Join now' to the session itself. */
function canJoin(viewer: Viewer, now: Date): boolean {
  return !!viewer && hasLiveSubscription(viewer, now);
}

function group<T, K>(items: T[], key: (t: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}
