/** A title's topics as chips linking to each topic page (the title card and the title page show the same list). */
import { Link } from 'react-router';
import { paths } from '@lectern/core';
import { track } from './analytics.ts';

export function TopicChips({ topics, className }: { topics: readonly { slug: string; name: string }[]; className: string }) {
  if (!topics.length) return null;
  return (
    <ul className={className} aria-label="Topics">
      {topics.map((t) => (
        <li key={t.slug}>
          <Link to={paths.topic(t.slug)} className="topic-chip" onClick={() => track('topic', 'click', t.slug)}>
            {t.name}
          </Link>
        </li>
      ))}
    </ul>
  );
}
