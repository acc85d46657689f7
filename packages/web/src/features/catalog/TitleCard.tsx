/**
 * Title card (library-playlists-account.md §2): cover, type label, title link (two lines, smaller when long),
 * 'by {authors}', publisher line, topic links and a Start button. The playlist menu and the progress bar are
 * slots that later issues fill.
 */
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { byline, formatLabel, LIMITS, paths, publisherLine, titleDisplay, type ContentMetadata } from '@lectern/core';
import { Card, CardBody, CardEyebrow, CardFooter, CardMedia } from '../../components/Card.tsx';
import { ButtonLink } from '../../components/Button.tsx';
import { Cover } from '../../components/Cover.tsx';
import { toAppPath } from '../../app/links.ts';
import './TitleCard.css';

export interface TitleCardProps {
  title: ContentMetadata;
  /** Load the cover at once (first screenful). */
  eagerCover?: boolean;
  /** Heading level of the title inside the page outline. */
  headingLevel?: 2 | 3;
  /** Slot: the progress bar ('N% Complete'), shown when progress is above 0. */
  progress?: ReactNode;
  /** Slot: the add-to-playlist menu. */
  playlistMenu?: ReactNode;
  /** Label of the main action: 'Start', or 'Continue' once progress exists. */
  actionLabel?: 'Start' | 'Continue';
}

export function TitleCard({ title, eagerCover = false, headingLevel = 2, progress, playlistMenu, actionLabel = 'Start' }: TitleCardProps) {
  const display = titleDisplay(title.title, LIMITS.titleShrinkThreshold);
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const by = byline(title.authors);
  const publisher = publisherLine(title.issued, title.publishers);
  const href = toAppPath(title.url);
  const topics = title.topics.slice(0, LIMITS.topicsShownBeforeMore);
  return (
    <Card className="title-card">
      <CardMedia className="title-card__media">
        <Link to={href} tabIndex={-1} className="title-card__cover-link">
          <Cover title={title.title} authors={title.authors} src={title.cover_image_url} eager={eagerCover} />
        </Link>
      </CardMedia>
      <CardBody className="title-card__body">
        <CardEyebrow className="title-card__label">{formatLabel(title.content_format)}</CardEyebrow>
        <Heading className={`title-card__title${display.shrink ? ' title-card__title--shrink' : ''}`}>
          <Link to={href} title={display.text !== title.title ? title.title : undefined}>
            {display.text}
          </Link>
        </Heading>
        {by ? <p className="title-card__byline">{by}</p> : null}
        {publisher ? <p className="title-card__publisher">{publisher}</p> : null}
        {topics.length ? (
          <ul className="title-card__topics" aria-label="Topics">
            {topics.map((t) => (
              <li key={t.slug}>
                <Link to={paths.topic(t.slug)} className="topic-chip">
                  {t.name}
                </Link>
              </li>
            ))}
          </ul>
        ) : null}
        {progress ? <div className="title-card__progress">{progress}</div> : null}
      </CardBody>
      <CardFooter className="title-card__footer">
        <ButtonLink to={toAppPath(title.continue_url)} size="sm" aria-label={`${actionLabel} ${title.title}`}>
          {actionLabel}
        </ButtonLink>
        {playlistMenu ? <div className="title-card__playlist">{playlistMenu}</div> : null}
      </CardFooter>
    </Card>
  );
}
