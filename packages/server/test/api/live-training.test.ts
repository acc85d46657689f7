/**
 * Live training (library-playlists-account.md §3, §4, §6, §7) on both engines: the banner's current event — none,
 * one starting within the window, one in progress, one over — who gets it (expired accounts never; join addresses
 * only for live subscriptions), the course statuses with their topic filter, and the operators' API with its 400s
 * naming the field, 401, 403 and 404.
 */
import {
  adminLiveCoursesResponseSchema,
  courseStatusesResponseSchema,
  currentEventResponseSchema,
  LIVE_TRAINING_MESSAGES,
  LIVE_TRAINING_SOON_WINDOW_MS,
  liveCourseStatusSchema,
  liveTrainingPaths,
} from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';

const MIN = 60_000;
const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

describe.each(ENGINES)('live training on %s', (engine) => {
  let t: TestApp;
  let admin: TestClient;
  let reader: TestClient;
  let expired: TestClient;
  let anon: TestClient;

  const current = async (c: TestClient) => {
    const res = await c.get(liveTrainingPaths.currentEvent());
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-cache');
    return currentEventResponseSchema.parse(res.json());
  };
  const addCourse = async (body: Record<string, unknown>) => {
    const res = await admin.post(liveTrainingPaths.adminCourses(), body);
    expect(res.statusCode, res.body).toBe(201);
    return liveCourseStatusSchema.parse(res.json());
  };
  const addEvent = async (courseId: string, body: Record<string, unknown>) => {
    const res = await admin.post(liveTrainingPaths.adminEvents(courseId), body);
    expect(res.statusCode, res.body).toBe(201);
    return liveCourseStatusSchema.parse(res.json()).events[0]!;
  };
  const removeEvent = async (eventId: string) => expect((await admin.request('DELETE', liveTrainingPaths.adminEvent(eventId))).statusCode).toBe(204);

  beforeAll(async () => {
    t = await startTestApp(engine);
    [reader] = await signedInSubscribers(t.lectern, ['reader@example.com']);
    await t.lectern.services.accounts.createUser({ email: 'gone@example.com', password: 'a long enough password', status: 'expired' });
    expired = new TestClient(t.lectern.app);
    await expired.login('gone@example.com', 'a long enough password');
    await t.lectern.services.accounts.createUser({ email: 'root@example.com', password: 'a long enough password', role: 'admin' });
    admin = new TestClient(t.lectern.app);
    await admin.login('root@example.com', 'a long enough password');
    anon = new TestClient(t.lectern.app);
  });
  afterAll(() => t.close());

  it('answers empty current-event data when nothing is scheduled, to everyone', async () => {
    for (const c of [anon, reader, expired, admin]) expect(await current(c)).toEqual({});
    const statuses = courseStatusesResponseSchema.parse((await anon.get(liveTrainingPaths.courseStatuses())).json());
    expect(statuses).toEqual({ results: [], topics: [] });
  });

  it('gives the course of an event starting within the window, join address only to a live subscription, none to an expired account', async () => {
    const course = await addCourse({ title: 'Kubernetes in Three Weeks', description: 'Hands on.', marketing_image_url: 'https://img.example.com/k8s.png', topics: ['Cloud', 'DevOps'] });
    expect(course).toMatchObject({ slug: 'kubernetes-in-three-weeks', url: `/live-training/courses/kubernetes-in-three-weeks/${course.course_id}/`, marketing_image2: 'https://img.example.com/k8s.png' });
    expect(course.topics.map((x) => x.slug)).toEqual(['cloud', 'devops']);
    const event = await addEvent(course.course_id, {
      start_datetime: at(10 * MIN),
      end_datetime: at(70 * MIN),
      join_url: 'https://meet.example.com/k8s',
      presenters: [{ name: 'Ada Lovelace', headshot_url: '/static/ada.png' }, { name: 'Bob' }],
    });

    const seen = await current(reader);
    expect(seen).toMatchObject({ slug: course.slug, course_id: course.course_id, marketing_image2: 'https://img.example.com/k8s.png' });
    expect('events' in seen && seen.events).toEqual([
      {
        event_id: event.event_id,
        start_datetime: event.start_datetime,
        end_datetime: event.end_datetime,
        join_url: 'https://meet.example.com/k8s',
        presenters: [
          { name: 'Ada Lovelace', headshot_url1: '/static/ada.png' },
          { name: 'Bob', headshot_url1: null },
        ],
      },
    ]);
    // A visitor sees the banner too, without the session's address; §6: an expired account sees none.
    const visitor = await current(anon);
    expect('events' in visitor && visitor.events[0]!.join_url).toBeNull();
    expect(await current(expired)).toEqual({});

    // Beyond the window: not current (the event above still is).
    const later = await addEvent(course.course_id, { start_datetime: at(LIVE_TRAINING_SOON_WINDOW_MS + 30 * MIN), end_datetime: at(LIVE_TRAINING_SOON_WINDOW_MS + 90 * MIN), join_url: 'http://meet.example.com/later' });
    await removeEvent(event.event_id);
    expect(await current(reader)).toEqual({});

    // The course statuses list both the course and its event to come, with the topics for the filter.
    const statuses = courseStatusesResponseSchema.parse((await reader.get(liveTrainingPaths.courseStatuses())).json());
    expect(statuses.topics).toEqual([
      { name: 'Cloud', slug: 'cloud' },
      { name: 'DevOps', slug: 'devops' },
    ]);
    expect(statuses.results.map((c) => [c.course_id, c.events.map((e) => e.event_id)])).toEqual([[course.course_id, [later.event_id]]]);
    await removeEvent(later.event_id);
  });

  it('prefers an event in progress to one about to start, and forgets an event once it is over', async () => {
    const course = await addCourse({ title: 'Rust for Pythonistas', topics: ['Programming'] });
    const soon = await addEvent(course.course_id, { start_datetime: at(5 * MIN), end_datetime: at(65 * MIN), join_url: 'https://meet.example.com/soon' });
    const live = await addEvent(course.course_id, { start_datetime: at(-20 * MIN), end_datetime: at(40 * MIN), join_url: 'https://meet.example.com/live' });
    const over = await addEvent(course.course_id, { start_datetime: at(-120 * MIN), end_datetime: at(-60 * MIN), join_url: 'https://meet.example.com/over' });
    const seen = await current(reader);
    expect('events' in seen && seen.events.map((e) => e.event_id)).toEqual([live.event_id]);
    await removeEvent(live.event_id);
    await removeEvent(soon.event_id);
    // Only an ended event left: no banner, and the course's status lists no events.
    expect(await current(reader)).toEqual({});
    const one = courseStatusesResponseSchema.parse((await reader.get(`${liveTrainingPaths.courseStatuses()}?course_id=${course.course_id}`)).json());
    expect(one.results.map((c) => [c.title, c.events])).toEqual([['Rust for Pythonistas', []]]);
    // The operators' list keeps past events.
    const all = adminLiveCoursesResponseSchema.parse((await admin.get(liveTrainingPaths.adminCourses())).json());
    expect(all.results.find((c) => c.course_id === course.course_id)!.events.map((e) => e.event_id)).toEqual([over.event_id]);
    // Topic filter.
    const programming = courseStatusesResponseSchema.parse((await anon.get(`${liveTrainingPaths.courseStatuses()}?topic=programming`)).json());
    expect(programming.results.map((c) => c.title)).toEqual(['Rust for Pythonistas']);
    expect((await anon.get(`${liveTrainingPaths.courseStatuses()}?course_id=abc`)).statusCode).toBe(400);
  });

  it('refuses bad courses and events with a 400 naming the field, and changes nothing', async () => {
    const before = (await admin.get(liveTrainingPaths.adminCourses())).body;
    const refused = async (url: string, body: Record<string, unknown>, field: string) => {
      const res = await admin.post(url, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(Object.keys(res.json().errors)).toEqual([field]);
      return res.json().errors[field] as string[];
    };
    await refused(liveTrainingPaths.adminCourses(), { title: '  ' }, 'title');
    await refused(liveTrainingPaths.adminCourses(), { title: 'X', slug: 'Not A Slug' }, 'slug');
    await refused(liveTrainingPaths.adminCourses(), { title: 'X', marketing_image_url: 'javascript:alert(1)' }, 'marketing_image_url');
    expect(await refused(liveTrainingPaths.adminCourses(), { title: 'Rust for Pythonistas' }, 'slug')).toEqual([LIVE_TRAINING_MESSAGES.slugTaken('rust-for-pythonistas')]);

    const { results } = adminLiveCoursesResponseSchema.parse(JSON.parse(before));
    const courseId = results[0]!.course_id;
    const good = { start_datetime: at(MIN), end_datetime: at(60 * MIN), join_url: 'https://meet.example.com/x' };
    for (const join_url of ['javascript:alert(1)', 'ftp://meet.example.com/x', '/relative/path', 'https://', 'data:text/html,hi']) {
      expect(await refused(liveTrainingPaths.adminEvents(courseId), { ...good, join_url }, 'join_url')).toEqual([LIVE_TRAINING_MESSAGES.joinUrlHttp]);
    }
    expect(await refused(liveTrainingPaths.adminEvents(courseId), { ...good, end_datetime: good.start_datetime }, 'end_datetime')).toEqual([LIVE_TRAINING_MESSAGES.endBeforeStart]);
    await refused(liveTrainingPaths.adminEvents(courseId), { ...good, start_datetime: 'tomorrow' }, 'start_datetime');
    await refused(liveTrainingPaths.adminEvents(courseId), { ...good, presenters: [{ name: '' }] }, 'presenters.0.name');
    expect((await admin.post(liveTrainingPaths.adminEvents('999999'), good)).statusCode).toBe(404);
    expect((await admin.request('DELETE', liveTrainingPaths.adminEvent('999999'))).statusCode).toBe(404);
    expect((await admin.get(liveTrainingPaths.adminCourses())).body).toBe(before);
  });

  it('keeps the operators’ API to admins: 401 signed out, 403 for a reader', async () => {
    const body = { title: 'Sneaky' };
    expect((await anon.post(liveTrainingPaths.adminCourses(), body)).statusCode).toBe(401);
    expect((await reader.post(liveTrainingPaths.adminCourses(), body)).statusCode).toBe(403);
    expect((await reader.get(liveTrainingPaths.adminCourses())).statusCode).toBe(403);
    expect((await reader.post(liveTrainingPaths.adminEvents('1'), {})).statusCode).toBe(403);
    expect((await reader.request('DELETE', liveTrainingPaths.adminCourse('1'))).statusCode).toBe(403);
    expect((await reader.request('DELETE', liveTrainingPaths.adminEvent('1'))).statusCode).toBe(403);
  });

  it('removes a course with its events', async () => {
    const course = await addCourse({ title: 'Short lived' });
    await addEvent(course.course_id, { start_datetime: at(MIN), end_datetime: at(30 * MIN), join_url: 'https://meet.example.com/short' });
    expect(await current(reader)).toMatchObject({ course_id: course.course_id });
    expect((await admin.request('DELETE', liveTrainingPaths.adminCourse(course.course_id))).statusCode).toBe(204);
    expect(await current(reader)).toEqual({});
    expect((await admin.request('DELETE', liveTrainingPaths.adminCourse(course.course_id))).statusCode).toBe(404);
  });
});
