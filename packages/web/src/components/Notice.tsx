/**
 * A notice (library-playlists-account.md §4): info, success, error or alert. A click closes it (the whole notice,
 * or its close button for keyboards); success and info fade after NOTICE_FADE_MS, error and alert stay until
 * closed. A new message in the same place shows again, however the last one ended.
 */
import { NOTICE_FADE_MS } from '@lectern/core';
import { type MouseEvent, type ReactNode, useEffect, useState } from 'react';
import './Notice.css';

export interface NoticeProps {
  tone?: 'info' | 'success' | 'error' | 'alert';
  title?: string;
  children?: ReactNode;
  /** Error and alert notices are announced at once (role="alert"); others politely (role="status"). */
  role?: 'alert' | 'status' | 'none';
  className?: string;
  /** false for a notice that explains the page and must stay (it neither fades nor closes) */
  dismissible?: boolean;
  /** when a success or info notice fades (the welcome message waits longer: §4's 25 s) */
  fadeAfterMs?: number;
  onClose?: () => void;
}

/** How long the fade takes before the notice is gone (Notice.css). */
const FADE_OUT_MS = 300;

export function Notice({ tone = 'info', title, children, role, className, dismissible = true, fadeAfterMs = NOTICE_FADE_MS, onClose }: NoticeProps) {
  const r = role ?? (tone === 'error' || tone === 'alert' ? 'alert' : 'status');
  const [state, setState] = useState<'shown' | 'fading' | 'closed'>('shown');
  // What the notice says: a new message shows again (the caller keeps the same element for each message).
  const message = `${title ?? ''}\u0000${typeof children === 'string' || typeof children === 'number' ? children : ''}`;
  useEffect(() => setState('shown'), [message]);
  useEffect(() => {
    if (!dismissible || state !== 'shown' || (tone !== 'success' && tone !== 'info')) return;
    const timer = window.setTimeout(() => setState('fading'), fadeAfterMs);
    return () => window.clearTimeout(timer);
  }, [dismissible, state, tone, message, fadeAfterMs]);
  useEffect(() => {
    if (state !== 'fading') return;
    const timer = window.setTimeout(() => {
      setState('closed');
      onClose?.();
    }, FADE_OUT_MS);
    return () => window.clearTimeout(timer);
  }, [state, onClose]);
  if (state === 'closed') return null;
  const close = (e: MouseEvent) => {
    // a link inside the notice still goes where it leads
    if ((e.target as Element).closest('a')) return;
    setState('fading');
  };
  return (
    <div
      className={['notice', `notice--${tone}`, dismissible ? 'notice--dismissible' : '', state === 'fading' ? 'notice--fading' : '', className].filter(Boolean).join(' ')}
      role={r === 'none' ? undefined : r}
      onClick={dismissible ? close : undefined}
    >
      {dismissible ? (
        <button type="button" className="notice__close" aria-label="Close notice" onClick={close}>
          <span aria-hidden="true">×</span>
        </button>
      ) : null}
      {title ? <p className="notice__title">{title}</p> : null}
      {children ? <div className="notice__body">{children}</div> : null}
    </div>
  );
}
