import { Button } from '../../components/Button.tsx';

export function Pager({ page, next, previous, label }: { page: number; next: (() => void) | null; previous: (() => void) | null; label: string }) {
  if (!next && !previous) return null;
  return (
    <nav className="admin-pager" aria-label={label}>
      <Button variant="secondary" size="sm" disabled={!previous} onClick={() => previous?.()}>
        Previous
      </Button>
      <span className="admin-muted">Page {page}</span>
      <Button variant="secondary" size="sm" disabled={!next} onClick={() => next?.()}>
        Next
      </Button>
    </nav>
  );
}
