/**
 * Title card (library-playlists-account.md §2): cover, type label, title link (two lines, smaller when long),
 * 'by {authors}', publisher line, topic links, a progress bar with 'N% Complete' when progress is above 0, and
 * a Start button (Continue once progress exists) linking to continue_url. Signed-in users get the queue toggle
 * and the playlist menu in the `controls` slot, and its transient messages in the `overlay` slot.
 */
import { useId, type ReactNode } from 'react';
import { Link } from 'react-router';
import { byline, formatLabel, LIMITS, publisherLine, titleDisplay, type ContentMetadata } from '@lectern/core';
import { Card, CardBody, CardEyebrow, CardFooter, CardMedia } from '../components/Card.tsx';
import { ButtonLink } from '../components/Button.tsx';
import { Cover } from '../components/Cover.tsx';
import { ProgressBar } from '../components/ProgressBar.tsx';
import { cardCoverUrl, toAppPath } from './links.ts';
import { TopicChips } from './TopicChips.tsx';
import './TitleCard.css';

export interface TitleCardProps {
  title: ContentMetadata;
  /** Load the cover at once (first screenful). */
  eagerCover?: boolean;
  /** Heading level of the title inside the page outline. */
  headingLevel?: 2 | 3;
  /** Reading progress in percent (else the title's own); above 0 shows the bar and turns Start into Continue. */
  progress?: number;
  /** Slot: queue toggle and playlist menu; a function receives the id of the title heading (to describe them). */
  controls?: ReactNode | ((titleId: string) => ReactNode);
  /** Slot: transient messages drawn over the card (queue feedback). */
  overlay?: ReactNode;
  className?: string;
}

export function TitleCard({ title, eagerCover = false, headingLevel = 2, progress: given, controls, overlay, className }: TitleCardProps) {
  const titleId = useId();
  // The book list brings the signed-in reader's progress with each title; playlists pass theirs in.
  const progress = given ?? title.progress ?? 0;
  const actionLabel = progress > 0 || title.resumes ? 'Continue' : 'Start';
  const display = titleDisplay(title.title, LIMITS.titleShrinkThreshold);
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const by = byline(title.authors);
  const publisher = publisherLine(title.issued, title.publishers);
  const href = toAppPath(title.url);
  const topics = title.topics.slice(0, LIMITS.topicsShownBeforeMore);
  return (
    <Card className={['title-card', className].filter(Boolean).join(' ')}>
      <CardMedia className="title-card__media">
        <Link to={href} tabIndex={-1} className="title-card__cover-link">
          <Cover title={title.title} authors={title.authors} src={title.cover_image_url && cardCoverUrl(title.cover_image_url)} eager={eagerCover} />
        </Link>
      </CardMedia>
      <CardBody className="title-card__body">
        <CardEyebrow className="title-card__label">{formatLabel(title.content_format)}</CardEyebrow>
        <Heading id={titleId} className={`title-card__title${display.shrink ? ' title-card__title--shrink' : ''}`}>
          <Link to={href} title={display.text !== title.title ? title.title : undefined}>
            {display.text}
          </Link>
        </Heading>
        {by ? <p className="title-card__byline">{by}</p> : null}
        {publisher ? <p className="title-card__publisher">{publisher}</p> : null}
        <TopicChips topics={topics} className="title-card__topics" />
        {progress > 0 ? (
          <div className="title-card__progress">
            <ProgressBar percent={progress} />
          </div>
        ) : null}
      </CardBody>
      <CardFooter className="title-card__footer">
        <ButtonLink to={toAppPath(title.continue_url)} size="sm" aria-label={`${actionLabel} ${title.title}`}>
          {actionLabel}
        </ButtonLink>
        {controls ? <div className="title-card__playlist">{typeof controls === 'function' ? controls(titleId) : controls}</div> : null}
      </CardFooter>
      {overlay}
    </Card>
  );
}
