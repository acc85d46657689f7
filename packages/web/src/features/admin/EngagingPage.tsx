/**
 * Engaging (docs/decisions.md "The operators' console, web side"): the home's announcements and editors' picks,
 * live-training courses and their events with presenters; each with the preview a reader will see, each action through
 * the admin API (and the audit log).
 */
import { useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { CONSOLE_MESSAGES as M, type LiveCourseStatus, type TransformationOwnList } from '@lectern/core';
import { Link } from 'react-router';
import { useState, type FormEvent, type ReactNode } from 'react';
import { adminApi, adminKeys } from '../../api/admin.ts';
import { api } from '../../api/client.ts';
import { appPaths } from '../../shared/links.ts';
import { SelectField } from './SelectField.tsx';
import { Button } from '../../components/Button.tsx';
import { ErrorState } from '../../components/ErrorState.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { TextArea } from '../../components/TextArea.tsx';
import { TextField } from '../../components/TextField.tsx';
import { formatDateTime, isoOfLocal } from './format.ts';
import { ActionStatus, useAction } from './useAction.tsx';
import './EngagingPage.css';

export function EngagingPage() {
  return (
    <div>
      <div className="admin-head">
        <h1 className="page-heading">Engaging</h1>
      </div>
      <Announcements />
      <EditorsPicks />
      <TransformationPlaylists />
      <LiveTraining />
    </div>
  );
}

/**
 * Transformation playlists (library-playlists-account.md §2): the operator's own playlists, each published under a
 * topic (its banner on the home and the topic's page) or not; made and filled on /c/ like any playlist.
 */
function TransformationPlaylists() {
  const own = useQuery({ queryKey: adminKeys.transformation, queryFn: ({ signal }) => adminApi.transformationOwn(signal) });
  const topics = useQuery({ queryKey: ['topics'], queryFn: ({ signal }) => api.listTopics(signal), staleTime: 60_000 });
  return (
    <section className="admin-panel" aria-labelledby="admin-transformation">
      <h2 id="admin-transformation">{M.transformationHeading}</h2>
      <p className="admin-hint">
        {M.transformationHint} <Link to={appPaths.playlists}>{M.transformationMake}</Link>
      </p>
      <Loading query={own} />
      {own.data?.length ? (
        <ul className="admin-list" aria-label={M.transformationHeading}>
          {own.data.map((p) => (
            <TransformationRow key={p.id} playlist={p} topics={topics.data ?? []} />
          ))}
        </ul>
      ) : own.data ? (
        <p className="admin-muted">{M.transformationNone}</p>
      ) : null}
    </section>
  );
}

function TransformationRow({ playlist, topics }: { playlist: TransformationOwnList['results'][number]; topics: readonly { slug: string; name: string }[] }) {
  const client = useQueryClient();
  const action = useAction();
  const [topic, setTopic] = useState(playlist.topic?.slug ?? '');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const saved = await action.run(
      () => (topic ? adminApi.publishTransformation(playlist.id, topic) : adminApi.unpublishTransformation(playlist.id)),
      () => (topic ? M.transformationPublished : M.transformationUnpublished),
    );
    if (saved) void client.invalidateQueries({ queryKey: adminKeys.transformation });
  };
  return (
    <li>
      <form className="admin-form admin-transformation" onSubmit={(e) => void submit(e)} aria-label={playlist.name} noValidate>
        <span>
          <strong>{playlist.name}</strong> <span className="admin-muted admin-small">{M.transformationCount(playlist.count)}</span>
        </span>
        <SelectField label={M.transformationTopic(playlist.name)} value={topic} onChange={(e) => setTopic(e.target.value)}>
          <option value="">{M.transformationNotPublished}</option>
          {topics.map((t) => (
            <option key={t.slug} value={t.slug}>
              {t.name}
            </option>
          ))}
        </SelectField>
        <div className="admin-form__actions">
          <Button type="submit" variant="secondary" busy={action.busy} disabled={!playlist.topic && !topic}>
            Save
          </Button>
          <ActionStatus action={action} />
        </div>
      </form>
    </li>
  );
}

function Loading({ query }: { query: { isPending: boolean; isError: boolean; refetch: () => unknown } }) {
  if (query.isPending) return <Spinner label="Loading…" />;
  if (query.isError) return <ErrorState message={M.loadFailed} onRetry={() => void query.refetch()} />;
  return null;
}

/** The announcement as the home shows it (an alert icon, the message, a link when it has one). */
function AnnouncementPreview({ message, url }: { message: string; url: string | null }) {
  return (
    <div className="admin-preview" aria-label={M.previewHeading} role="group">
      <p className="admin-preview__label">{M.previewHeading}</p>
      <p className="admin-announcement">
        <Icon name="alert" size={16} />
        {url ? <span className="admin-announcement__link">{message}</span> : <span>{message}</span>}
      </p>
    </div>
  );
}

function Announcements() {
  const client = useQueryClient();
  const list = useQuery({ queryKey: adminKeys.announcements, queryFn: ({ signal }) => adminApi.announcements(signal) });
  const action = useAction();
  const remove = useAction();
  const [message, setMessage] = useState('');
  const [url, setUrl] = useState('');
  const [ends, setEnds] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const made = await action.run(() => adminApi.addAnnouncement({ message, url: url.trim() || null, ends_at: isoOfLocal(ends) }), () => M.announcementAdded);
    if (made) {
      setMessage('');
      setUrl('');
      setEnds('');
      void client.invalidateQueries({ queryKey: adminKeys.announcements });
      void client.invalidateQueries({ queryKey: ['home'] });
    }
  };
  return (
    <section className="admin-panel" aria-labelledby="admin-announcements">
      <h2 id="admin-announcements">Announcements</h2>
      <p className="admin-hint">Shown at the top of every reader’s home until they end.</p>
      <form className="admin-form" onSubmit={(e) => void submit(e)} aria-label="New announcement" noValidate>
        <TextArea className="admin-form__wide" label="Message" name="message" rows={2} value={message} onChange={(e) => setMessage(e.target.value)} errors={action.errors.message} />
        <TextField label="Link (optional)" name="url" value={url} placeholder="/live-training/" onChange={(e) => setUrl(e.target.value)} errors={action.errors.url} />
        <TextField label="Ends (optional)" name="ends_at" type="datetime-local" value={ends} onChange={(e) => setEnds(e.target.value)} errors={action.errors.ends_at} />
        {message.trim() ? (
          <div className="admin-form__wide">
            <AnnouncementPreview message={message.trim()} url={url.trim() || null} />
          </div>
        ) : null}
        <div className="admin-form__actions">
          <Button type="submit" busy={action.busy}>
            Publish
          </Button>
          <ActionStatus action={action} />
        </div>
      </form>
      <Loading query={list} />
      {list.data?.length ? (
        <ul className="admin-list admin-space" aria-label="Announcements list">
          {list.data.map((a) => (
            <li key={a.id}>
              <div>
                <p className="admin-strong">{a.message}</p>
                <p className="admin-muted admin-small">
                  {a.url ? `${a.url} · ` : ''}from {formatDateTime(a.starts_at)} {a.ends_at ? `until ${formatDateTime(a.ends_at)}` : 'with no end'}
                </p>
              </div>
              <Button
                variant="ghost"
                size="sm"
                aria-label={`Remove the announcement ${a.message}`}
                onClick={() =>
                  void remove.run(() => adminApi.removeAnnouncement(a.id)).then(() => client.invalidateQueries({ queryKey: adminKeys.announcements }))
                }
              >
                <Icon name="trash" size={14} /> Remove
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
      <ActionStatus action={remove} />
    </section>
  );
}

function EditorsPicks() {
  const client = useQueryClient();
  const picks = useQuery({ queryKey: adminKeys.picks, queryFn: ({ signal }) => adminApi.editorsPicks(signal) });
  const action = useAction();
  const [typed, setTyped] = useState('');
  const [q, setQ] = useState('');
  // operators know titles, not book ids: a pick is found by its title or author
  const found = useQuery({ queryKey: adminKeys.titles({ q, limit: 5 }), queryFn: ({ signal }) => adminApi.titles({ q, limit: 5 }, signal), enabled: q !== '' });
  const ids = picks.data ?? [];
  const names = useQueries({
    queries: ids.map((id) => ({ queryKey: adminKeys.title(id), queryFn: ({ signal }: { signal: AbortSignal }) => adminApi.title(id, signal), staleTime: 60_000 })),
  });
  const nameOf = (i: number) => names[i]?.data?.title ?? ids[i]!;
  const save = (next: string[]) =>
    action.run(() => adminApi.setEditorsPicks(next), () => M.saved).then((saved) => {
      if (saved) void client.invalidateQueries({ queryKey: adminKeys.picks });
      return saved;
    });
  return (
    <section className="admin-panel" aria-labelledby="admin-picks">
      <h2 id="admin-picks">Editors’ picks</h2>
      <p className="admin-hint">The home’s “Editors’ picks” row, in this order. A title’s page under Titles can pick it too.</p>
      <Loading query={picks} />
      {ids.length ? (
        <ol className="admin-list" aria-label="Picks">
          {ids.map((id, i) => (
            <li key={id}>
              <span>{nameOf(i)}</span>
              <span className="admin-row-actions">
                <Button variant="ghost" size="sm" disabled={i === 0} aria-label={`Move ${nameOf(i)} up`} onClick={() => void save(swap(ids, i, i - 1))}>
                  Up
                </Button>
                <Button variant="ghost" size="sm" aria-label={`Remove ${nameOf(i)} from the picks`} onClick={() => void save(ids.filter((x) => x !== id))}>
                  Remove
                </Button>
              </span>
            </li>
          ))}
        </ol>
      ) : picks.data ? (
        <p className="admin-muted">No picks yet.</p>
      ) : null}
      <form
        className="admin-form admin-space"
        role="search"
        aria-label="Pick a title"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          setQ(typed.trim());
        }}
      >
        <TextField label="Find a title to pick" name="q" type="search" value={typed} onChange={(e) => setTyped(e.target.value)} errors={action.errors.book_ids} autoComplete="off" />
        <div className="admin-form__actions">
          <Button type="submit" variant="secondary">
            Find
          </Button>
          <ActionStatus action={action} />
        </div>
      </form>
      {found.data ? (
        found.data.results.length ? (
          <ul className="admin-list admin-space" aria-label="Titles found">
            {found.data.results.map((t) => (
              <li key={t.book_id}>
                <div>
                  <p className="admin-strong">{t.title}</p>
                  <p className="admin-muted admin-small">{t.authors.join(', ')}</p>
                </div>
                <Button variant="secondary" size="sm" disabled={ids.includes(t.book_id) || action.busy} aria-label={`Pick ${t.title}`} onClick={() => void save([...ids, t.book_id])}>
                  {ids.includes(t.book_id) ? 'Picked' : 'Pick'}
                </Button>
              </li>
            ))}
          </ul>
        ) : (
          <p className="admin-muted admin-space">{M.noResults}</p>
        )
      ) : null}
    </section>
  );
}

function swap<T>(list: readonly T[], a: number, b: number): T[] {
  const out = [...list];
  [out[a], out[b]] = [out[b]!, out[a]!];
  return out;
}

function LiveTraining() {
  const client = useQueryClient();
  const courses = useQuery({ queryKey: adminKeys.liveCourses, queryFn: ({ signal }) => adminApi.liveCourses(signal) });
  const action = useAction();
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [image, setImage] = useState('');
  const [topics, setTopics] = useState('');
  const refresh = () => client.invalidateQueries({ queryKey: adminKeys.liveCourses });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const topicList = topics
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    const made = await action.run(
      () => adminApi.addCourse({ title, description: description || undefined, marketing_image_url: image.trim() || null, topics: topicList }),
      () => M.saved,
    );
    if (made) {
      setTitle('');
      setDescription('');
      setImage('');
      setTopics('');
      void refresh();
    }
  };
  return (
    <section className="admin-panel" aria-labelledby="admin-live">
      <h2 id="admin-live">Live training</h2>
      <form className="admin-form" onSubmit={(e) => void submit(e)} aria-label="New course" noValidate>
        <TextField label="Course title" name="title" value={title} onChange={(e) => setTitle(e.target.value)} errors={action.errors.title} />
        <TextField label="Topics (comma-separated)" name="topics" value={topics} onChange={(e) => setTopics(e.target.value)} errors={action.errors.topics} />
        <TextField label="Image (optional)" name="marketing_image_url" value={image} onChange={(e) => setImage(e.target.value)} errors={action.errors.marketing_image_url} />
        <TextArea className="admin-form__wide" label="Description" name="description" rows={2} value={description} onChange={(e) => setDescription(e.target.value)} errors={action.errors.description} />
        {title.trim() ? (
          <div className="admin-form__wide">
            <CoursePreview title={title.trim()} topics={topics} description={description} />
          </div>
        ) : null}
        <div className="admin-form__actions">
          <Button type="submit" busy={action.busy}>
            Add course
          </Button>
          <ActionStatus action={action} />
        </div>
      </form>
      <Loading query={courses} />
      {courses.data?.map((c) => <Course key={c.course_id} course={c} onChange={() => void refresh()} />)}
    </section>
  );
}

function CoursePreview({ title, topics, description }: { title: string; topics: string; description: string }) {
  return (
    <div className="admin-preview" role="group" aria-label={M.previewHeading}>
      <p className="admin-preview__label">{M.previewHeading}</p>
      <div className="admin-course-card">
        <div className="admin-course-card__image" aria-hidden="true">
          {title.slice(0, 1)}
        </div>
        <div>
          {topics.trim() ? <p className="admin-course-card__topics">{topics.split(',').map((t) => t.trim()).filter(Boolean).join(' · ')}</p> : null}
          <p className="admin-strong">{title}</p>
          {description ? <p className="admin-muted admin-small">{description}</p> : null}
        </div>
      </div>
    </div>
  );
}

function Course({ course, onChange }: { course: LiveCourseStatus; onChange: () => void }) {
  const action = useAction();
  const remove = useAction();
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [join, setJoin] = useState('');
  const [presenter, setPresenter] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const made = await action.run(
      () =>
        adminApi.addEvent(course.course_id, {
          start_datetime: isoOfLocal(start) ?? '',
          end_datetime: isoOfLocal(end) ?? '',
          join_url: join,
          presenters: presenter.trim() ? presenter.split(',').map((name) => ({ name: name.trim() })) : [],
        }),
      () => M.saved,
    );
    if (made) {
      setStart('');
      setEnd('');
      onChange();
    }
  };
  return (
    <article className="admin-course" aria-labelledby={`admin-course-${course.course_id}`}>
      <div className="admin-course__head">
        <h3 id={`admin-course-${course.course_id}`}>{course.title}</h3>
        <Button variant="ghost" size="sm" onClick={() => void remove.run(() => adminApi.removeCourse(course.course_id)).then(onChange)} aria-label={`Remove the course ${course.title}`}>
          <Icon name="trash" size={14} /> Remove
        </Button>
      </div>
      <ActionStatus action={remove} />
      {course.events.length ? (
        <ul className="admin-list">
          {course.events.map((ev) => (
            <li key={ev.event_id}>
              <div>
                <p className="admin-strong">
                  {formatDateTime(ev.start_datetime)} – {formatDateTime(ev.end_datetime)}
                </p>
                <p className="admin-muted admin-small">{ev.presenters.map((p) => p.name).join(', ') || 'No presenter named'}</p>
              </div>
              <Button variant="ghost" size="sm" onClick={() => void remove.run(() => adminApi.removeEvent(ev.event_id)).then(onChange)} aria-label={`Remove the session of ${formatDateTime(ev.start_datetime)}`}>
                Remove
              </Button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="admin-muted">No sessions yet.</p>
      )}
      <Details summary="Add a session">
        <form className="admin-form" onSubmit={(e) => void submit(e)} aria-label={`New session of ${course.title}`} noValidate>
          <TextField label="Starts" name="start_datetime" type="datetime-local" value={start} onChange={(e) => setStart(e.target.value)} errors={action.errors.start_datetime} />
          <TextField label="Ends" name="end_datetime" type="datetime-local" value={end} onChange={(e) => setEnd(e.target.value)} errors={action.errors.end_datetime} />
          <TextField label="Join address" name="join_url" value={join} placeholder="https://" onChange={(e) => setJoin(e.target.value)} errors={action.errors.join_url} />
          <TextField label="Presenters (comma-separated)" name="presenters" value={presenter} onChange={(e) => setPresenter(e.target.value)} errors={action.errors.presenters} />
          <div className="admin-form__actions">
            <Button type="submit" variant="secondary" busy={action.busy}>
              Add session
            </Button>
            <ActionStatus action={action} />
          </div>
        </form>
      </Details>
    </article>
  );
}

function Details({ summary, children }: { summary: string; children: ReactNode }) {
  return (
    <details className="admin-details">
      <summary>{summary}</summary>
      {children}
    </details>
  );
}
