/**
 * /live-training/ (library-playlists-account.md §2): the live training courses index, with a topic filter
 * (`?topic=slug`) and the full-schedule banner — every upcoming session of the courses shown, soonest first.
 */
import { LIVE_TRAINING_MESSAGES as M, liveTrainingPaths, type LiveCourseStatus } from '@lectern/core';
import { Link, useSearchParams } from 'react-router';
import { FilterPill } from '../../components/FilterPill.tsx';
import { Card, CardBody, CardEyebrow, CardMedia } from '../../components/Card.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorState } from '../../components/ErrorState.tsx';
import { Skeleton } from '../../components/Skeleton.tsx';
import { track } from '../../shared/analytics.ts';
import { toAppPath } from '../../shared/links.ts';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { isLiveNow, sessionStart, sessionTime, useLiveCourses } from './useLiveCourses.ts';
import './LiveTraining.css';

export function CourseImage({ course, className }: { course: LiveCourseStatus; className?: string }) {
  return course.marketing_image2 ? (
    <img className={`live-course-image ${className ?? ''}`} src={course.marketing_image2} alt="" loading="lazy" />
  ) : (
    <div className={`live-course-image live-course-image--placeholder ${className ?? ''}`} aria-hidden="true">
      <span>{course.title.slice(0, 1)}</span>
    </div>
  );
}

function CourseCard({ course }: { course: LiveCourseStatus }) {
  const next = course.events[0];
  return (
    <Card className="live-card">
      <CardMedia>
        <CourseImage course={course} />
      </CardMedia>
      <CardBody>
        {course.topics.length ? <CardEyebrow>{course.topics.map((t) => t.name).join(' · ')}</CardEyebrow> : null}
        <h2 className="live-card__title">
          <Link to={toAppPath(course.url)} onClick={() => track('live-training', 'open-course', course.slug)}>
            {course.title}
          </Link>
        </h2>
        {course.description ? <p className="live-card__description">{course.description}</p> : null}
        <p className="live-card__next">
          {next ? (
            isLiveNow(next) ? (
              <span className="live-badge">{M.liveNow}</span>
            ) : (
              <>
                {M.nextSession('')}
                <RelativeTime at={next.start_datetime} /> ({sessionStart(next.start_datetime)})
              </>
            )
          ) : (
            M.noUpcoming
          )}
        </p>
      </CardBody>
    </Card>
  );
}

function FullSchedule({ courses }: { courses: LiveCourseStatus[] }) {
  const sessions = courses
    .flatMap((c) => c.events.map((e) => ({ course: c, event: e })))
    .sort((a, b) => Date.parse(a.event.start_datetime) - Date.parse(b.event.start_datetime));
  if (!sessions.length) return null;
  return (
    <section className="live-schedule" aria-labelledby="live-schedule-heading">
      <div className="live-schedule__head">
        <h2 id="live-schedule-heading">{M.fullSchedule}</h2>
        <p>{M.fullScheduleLead}</p>
      </div>
      <ol className="live-schedule__list">
        {sessions.map(({ course, event }) => (
          <li key={event.event_id} className="live-schedule__item">
            <time dateTime={event.start_datetime}>{sessionTime(event.start_datetime, event.end_datetime)}</time>
            <RelativeTime at={event.start_datetime} className="live-schedule__relative" />
            <Link to={toAppPath(course.url)} onClick={() => track('live-training', 'open-course', course.slug)}>
              {course.title}
            </Link>
            {isLiveNow(event) ? <span className="live-badge">{M.liveNow}</span> : null}
          </li>
        ))}
      </ol>
    </section>
  );
}

export default function LiveTrainingPage() {
  const [params] = useSearchParams();
  const topic = params.get('topic') ?? undefined;
  const all = useLiveCourses({});
  const courses = useLiveCourses(topic ? { topic } : {});
  const topics = all.data?.topics ?? [];
  const list = courses.data?.results ?? [];
  return (
    <div className="page live-training">
      <title>{`${M.indexTitle} · Lectern`}</title>
      <header className="live-training__header">
        <h1 className="page-heading">{M.indexTitle}</h1>
        <p className="live-training__lead">{M.indexLead}</p>
      </header>
      {topics.length ? (
        <nav className="live-topics" aria-label="Topics">
          <ul>
            <li>
              <FilterPill to={liveTrainingPaths.index()} current={!topic}>
                {M.allTopics}
              </FilterPill>
            </li>
            {topics.map((t) => (
              <li key={t.slug}>
                <FilterPill to={liveTrainingPaths.index(t.slug)} current={topic === t.slug}>
                  {t.name}
                </FilterPill>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
      {courses.isPending ? (
        <div className="live-grid" aria-hidden="true">
          {[0, 1, 2].map((i) => (
            <Skeleton key={i} className="live-grid__skeleton" />
          ))}
        </div>
      ) : courses.isError ? (
        <ErrorState message={M.loadFailed} onRetry={() => void courses.refetch()} retrying={courses.isRefetching} />
      ) : !list.length ? (
        <EmptyState title={topic ? M.noCoursesInTopic : M.noCourses}>{topic ? <Link to={liveTrainingPaths.index()}>{M.allTopics}</Link> : null}</EmptyState>
      ) : (
        <>
          <FullSchedule courses={list} />
          <ul className="live-grid" aria-label={M.indexTitle}>
            {list.map((c) => (
              <li key={c.course_id}>
                <CourseCard course={c} />
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
