import type { ReactNode } from 'react';
import './Notice.css';

export interface NoticeProps {
  tone?: 'info' | 'success' | 'error';
  title?: string;
  children?: ReactNode;
  /** Error notices are announced at once (role="alert"); others politely (role="status"). */
  role?: 'alert' | 'status' | 'none';
  className?: string;
}

export function Notice({ tone = 'info', title, children, role, className }: NoticeProps) {
  const r = role ?? (tone === 'error' ? 'alert' : 'status');
  return (
    <div className={['notice', `notice--${tone}`, className].filter(Boolean).join(' ')} role={r === 'none' ? undefined : r}>
      {title ? <p className="notice__title">{title}</p> : null}
      {children ? <div className="notice__body">{children}</div> : null}
    </div>
  );
}
