/** The few icons the app needs, inline so they cost no request. Decorative: pair them with text. */
export type IconName =
  | 'lock'
  | 'book'
  | 'chevron-down'
  | 'chevron-left'
  | 'chevron-right'
  | 'search'
  | 'download'
  | 'user'
  | 'playlist-add'
  | 'playlist-check'
  | 'bookmark'
  | 'check'
  | 'plus'
  | 'alert'
  | 'edit'
  | 'trash'
  | 'copy'
  | 'list'
  | 'arrow-up'
  | 'arrow-down'
  | 'grip'
  | 'close';

const PATHS: Record<IconName, string> = {
  lock: 'M7 10V7a5 5 0 0 1 10 0v3M5 10h14v11H5z M12 14v3',
  book: 'M4 4h6a3 3 0 0 1 3 3v13a2 2 0 0 0-2-2H4z M20 4h-6a3 3 0 0 0-3 3v13a2 2 0 0 1 2-2h7z',
  'chevron-down': 'M6 9l6 6 6-6',
  'chevron-left': 'M15 6l-6 6 6 6',
  'chevron-right': 'M9 6l6 6-6 6',
  search: 'M11 4a7 7 0 1 0 0 14 7 7 0 0 0 0-14z M20 20l-4-4',
  download: 'M12 4v11 M7 10l5 5 5-5 M5 20h14',
  user: 'M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8z M4 21a8 8 0 0 1 16 0',
  'playlist-add': 'M4 6h12 M4 11h12 M4 16h7 M18 13v8 M14 17h8',
  'playlist-check': 'M4 6h12 M4 11h12 M4 16h7 M14 17.5l2.5 2.5 5-5.5',
  bookmark: 'M6 3.5h12v17l-6-4.2-6 4.2z',
  check: 'M5 12.5l4.5 4.5L19 7.5',
  plus: 'M12 5v14 M5 12h14',
  alert: 'M12 3.5l9.5 17h-19z M12 10v4.5 M12 17.5v.01',
  edit: 'M4 20h4L19 9l-4-4L4 16z M13.5 6.5l4 4',
  trash: 'M4 7h16 M10 11v6 M14 11v6 M6 7l1 13h10l1-13 M9 7V4h6v3',
  copy: 'M9 9h11v11H9z M5 15H4V4h11v1',
  list: 'M9 6h11 M9 12h11 M9 18h11 M4.5 6v.01 M4.5 12v.01 M4.5 18v.01',
  'arrow-up': 'M12 19V5 M6 11l6-6 6 6',
  'arrow-down': 'M12 5v14 M6 13l6 6 6-6',
  close: 'M6 6l12 12 M18 6L6 18',
  grip: 'M9 6v.01 M15 6v.01 M9 12v.01 M15 12v.01 M9 18v.01 M15 18v.01',
};

export function Icon({ name, size = 16, className, filled = false }: { name: IconName; size?: number; className?: string; filled?: boolean }) {
  return (
    <svg
      className={className}
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill={filled ? 'currentColor' : 'none'}
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      <path d={PATHS[name]} />
    </svg>
  );
}
