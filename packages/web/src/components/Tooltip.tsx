import type { ReactNode } from 'react';
import './Tooltip.css';

/**
 * A short label shown above its control on hover and keyboard focus. Purely visual: the control must carry the
 * same words as its accessible name (aria-label), so the tooltip itself is hidden from assistive technology.
 */
export function Tooltip({ label, children, hidden = false, placement = 'top' }: { label: string; children: ReactNode; hidden?: boolean; placement?: 'top' | 'bottom' }) {
  return (
    <span className={`tooltip-anchor${hidden ? ' tooltip-anchor--off' : ''}`}>
      {children}
      <span className={`tooltip tooltip--${placement}`} aria-hidden="true">
        {label}
      </span>
    </span>
  );
}
