import type { CSSProperties } from 'react';
import './Skeleton.css';

/** A grey placeholder block; shapes are set by the caller. Hidden from assistive technology. */
export function Skeleton({ className, style }: { className?: string; style?: CSSProperties }) {
  return <span className={['skeleton', className].filter(Boolean).join(' ')} style={style} aria-hidden="true" />;
}
