/**
 * /live-training/courses/{slug}/{course_id}/ (library-playlists-account.md §2, the banner's course link): the course,
 * its topics and description, and its upcoming sessions with their presenters; 'Join now' on a session in progress
 * for those who may join.
 */
import { isHttpUrl, LIVE_TRAINING_MESSAGES as M, liveTrainingPaths } from '@lectern/core';
import { Link, Navigate, useParams } from 'react-router';
import { FilterPill } from '../../components/FilterPill.tsx';
import { ErrorState } from '../../components/ErrorState.tsx';
import { PageLoading } from '../../components/PageLoading.tsx';
import { track } from '../../shared/analytics.ts';
import { NotFoundPage } from '../../shared/NotFoundPage.tsx';
import { CourseImage } from './LiveTrainingPage.tsx';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { isLiveNow, sessionTime, useLiveCourses } from './useLiveCourses.ts';
import './LiveTraining.css';

export default function CoursePage() {
  const { slug = '', courseId = '' } = useParams();
  const valid = /^[1-9][0-9]{0,9}$/.test(courseId);
  const query = useLiveCourses(valid ? { course_id: courseId } : {});
  if (!valid) return <NotFoundPage message={M.courseNotFound} />;
  if (query.isPending) return <PageLoading />;
  if (query.isError) return <div className="page"><ErrorState message={M.loadFailed} onRetry={() => void query.refetch()} retrying={query.isRefetching} /></div>;
  const course = query.data.results[0];
  if (!course) return <NotFoundPage message={M.courseNotFound} />;
  // An old slug in the address: the course's own address.
  if (course.slug !== slug) return <Navigate to={liveTrainingPaths.course(course.slug, course.course_id)} replace />;
  const anyJoin = course.events.some((e) => e.join_url);
  return (
    <div className="page live-course">
      <title>{`${course.title} · ${M.indexTitle} · Lectern`}</title>
      <p className="live-course__back">
        <Link to={liveTrainingPaths.index()}>← {M.indexTitle}</Link>
      </p>
      <header className="live-course__hero">
        <CourseImage course={course} className="live-course__image" />
        <div className="live-course__intro">
          {course.topics.length ? (
            <ul className="live-course__topics" aria-label="Topics">
              {course.topics.map((t) => (
                <li key={t.slug}>
                  <FilterPill to={liveTrainingPaths.index(t.slug)} small>
                    {t.name}
                  </FilterPill>
                </li>
              ))}
            </ul>
          ) : null}
          <h1 className="page-heading">{course.title}</h1>
          {course.description ? <p className="live-course__description">{course.description}</p> : null}
        </div>
      </header>
      <section aria-labelledby="live-sessions-heading" className="live-course__sessions">
        <h2 id="live-sessions-heading">{M.upcomingSessions}</h2>
        {!course.events.length ? (
          <p className="live-course__none">{M.noUpcoming}</p>
        ) : (
          <ol className="live-sessions">
            {course.events.map((e) => {
              const live = isLiveNow(e);
              const join = e.join_url && isHttpUrl(e.join_url) ? e.join_url : null;
              return (
                <li key={e.event_id} className={`live-session${live ? ' live-session--live' : ''}`}>
                  <div className="live-session__when">
                    <time dateTime={e.start_datetime}>{sessionTime(e.start_datetime, e.end_datetime)}</time>
                    {live ? <span className="live-badge">{M.liveNow}</span> : <RelativeTime at={e.start_datetime} className="live-session__relative" />}
                  </div>
                  {e.presenters.length ? (
                    <ul className="live-session__presenters" aria-label="Presenters">
                      {e.presenters.map((p) => (
                        <li key={p.name}>
                          {p.headshot_url1 ? <img src={p.headshot_url1} alt="" width={32} height={32} /> : <span className="live-session__initial" aria-hidden="true">{p.name.slice(0, 1)}</span>}
                          {p.name}
                        </li>
                      ))}
                    </ul>
                  ) : null}
                  {live && join ? (
                    <a className="btn btn--primary btn--md live-session__join" href={join} target="_blank" rel="noopener noreferrer" onClick={() => track('live-training', 'join', course.slug)}>
                      {M.joinNow}
                    </a>
                  ) : null}
                </li>
              );
            })}
          </ol>
        )}
        {course.events.length && !anyJoin ? <p className="live-course__note">{M.signInToJoin}</p> : null}
      </section>
    </div>
  );
}
