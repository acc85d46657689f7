/** The reader's own icons (the design system's set has no sun, moon or type icons); decorative, pair with text. */
export type ReaderIconName =
  | 'toc'
  | 'type'
  | 'close'
  | 'prev'
  | 'next'
  | 'minus'
  | 'plus'
  | 'sun'
  | 'cloud'
  | 'moon'
  | 'scroll'
  | 'pages'
  | 'check'
  | 'queue-add'
  | 'queue-check'
  | 'zoom-in'
  | 'zoom-out'
  | 'fit'
  | 'reset'
  | 'lock'
  | 'alert'
  | 'masthead'
  | 'menu-bar'
  | 'offline'
  | 'search'
  | 'notes'
  | 'speaker'
  | 'play'
  | 'pause'
  | 'stop'
  | 'skip-back'
  | 'skip-forward'
  | 'escape'
  | 'rewind'
  | 'fast-forward'
  | 'captions'
  | 'fullscreen'
  | 'timer';

const PATHS: Record<ReaderIconName, string> = {
  toc: 'M4 6h16 M4 12h16 M4 18h10',
  type: 'M4 19l5-14 5 14 M5.8 14h6.4 M15 19l3.2-9 3.3 9 M16 16h4.4',
  close: 'M6 6l12 12 M18 6L6 18',
  prev: 'M15 6l-6 6 6 6',
  next: 'M9 6l6 6-6 6',
  minus: 'M5 12h14',
  plus: 'M12 5v14 M5 12h14',
  sun: 'M12 8a4 4 0 1 0 0 8 4 4 0 0 0 0-8z M12 2v2 M12 20v2 M4.9 4.9l1.4 1.4 M17.7 17.7l1.4 1.4 M2 12h2 M20 12h2 M4.9 19.1l1.4-1.4 M17.7 6.3l1.4-1.4',
  cloud: 'M7 18h10a4 4 0 0 0 .6-7.95A6 6 0 0 0 6.2 9.2 4.5 4.5 0 0 0 7 18z',
  moon: 'M20 14.5A8 8 0 1 1 9.5 4a6.5 6.5 0 0 0 10.5 10.5z',
  scroll: 'M7 3h10v18H7z M10 7h4 M10 11h4 M10 15h4',
  pages: 'M3 5h8v14H3z M13 5h8v14h-8z',
  check: 'M5 12.5l4.5 4.5L19 7.5',
  'queue-add': 'M4 6h12 M4 11h12 M4 16h7 M18 13v8 M14 17h8',
  'queue-check': 'M4 6h12 M4 11h12 M4 16h7 M14 17.5l2.5 2.5 5-5.5',
  'zoom-in': 'M11 4a7 7 0 1 0 0 14 7 7 0 0 0 0-14z M20 20l-4-4 M11 8v6 M8 11h6',
  'zoom-out': 'M11 4a7 7 0 1 0 0 14 7 7 0 0 0 0-14z M20 20l-4-4 M8 11h6',
  fit: 'M4 9V4h5 M20 9V4h-5 M4 15v5h5 M20 15v5h-5',
  reset: 'M4 12a8 8 0 1 0 2.4-5.7 M4 4v4h4',
  lock: 'M7 10V7a5 5 0 0 1 10 0v3M5 10h14v11H5z M12 14v3',
  alert: 'M12 3.5l9.5 17h-19z M12 10v4.5 M12 17.5v.01',
  masthead: 'M4 4h16v16H4z M4 9h16',
  'menu-bar': 'M4 4h16v16H4z M4 15h16',
  notes: 'M5 4h11l3 3v13H5z M8 9h8 M8 13h8 M8 17h5',
  speaker: 'M4 9h4l5-4v14l-5-4H4z M16.5 8.5a5 5 0 0 1 0 7 M19 6a8.5 8.5 0 0 1 0 12',
  play: 'M7 5l12 7-12 7z',
  pause: 'M8 5v14 M16 5v14',
  stop: 'M6 6h12v12H6z',
  'skip-back': 'M6 5v14 M18 5l-9 7 9 7z',
  'skip-forward': 'M18 5v14 M6 5l9 7-9 7z',
  escape: 'M10 4H5v16h5 M14 8l4 4-4 4 M18 12H9',
  rewind: 'M4 12a8 8 0 1 0 2.4-5.7 M4 4v4h4',
  'fast-forward': 'M20 12a8 8 0 1 1-2.4-5.7 M20 4v4h-4',
  captions: 'M3 6h18v12H3z M10 10.5a2 2 0 1 0 0 3 M17 10.5a2 2 0 1 0 0 3',
  fullscreen: 'M4 9V4h5 M20 9V4h-5 M4 15v5h5 M20 15v5h-5',
  timer: 'M12 7v5l3 2 M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18z',
  search: 'M11 4a7 7 0 1 0 0 14 7 7 0 0 0 0-14z M20 20l-4-4',
  offline: 'M3 3l18 18 M8.5 16.5a5 5 0 0 1 7 0 M5 12.9a10 10 0 0 1 4.2-2.5 M14.8 10.4A10 10 0 0 1 19 12.9 M2 9.3a15 15 0 0 1 4.4-2.9 M11 5.1A15 15 0 0 1 22 9.3 M12 20h.01',
};

export function ReaderIcon({ name, size = 20 }: { name: ReaderIconName; size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.9" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
      <path d={PATHS[name]} />
    </svg>
  );
}
