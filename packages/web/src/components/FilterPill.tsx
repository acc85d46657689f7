/**
 * A pill-shaped link that picks a filter (a topic of the catalog, of the live-training courses): outlined, filled when
 * it is the one on show (`aria-current="page"`). `small` is the compact form used inside cards.
 */
import { Link, type LinkProps } from 'react-router';
import './FilterPill.css';

export type FilterPillProps = LinkProps & { current?: boolean; small?: boolean };

export function FilterPill({ current = false, small = false, className, ...rest }: FilterPillProps) {
  return <Link {...rest} className={['filter-pill', small ? 'filter-pill--small' : '', className ?? ''].filter(Boolean).join(' ')} aria-current={current ? 'page' : undefined} />;
}
