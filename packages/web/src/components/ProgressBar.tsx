import './ProgressBar.css';

/** Reading progress: a thin bar and 'N% Complete' (library-playlists-account.md §2). */
export function ProgressBar({ percent }: { percent: number }) {
  const value = Math.max(0, Math.min(100, Math.round(percent)));
  const text = `${value}% Complete`;
  return (
    <div className="progress">
      <div className="progress__track" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={value} aria-valuetext={text} aria-label="Progress">
        <span className="progress__fill" style={{ width: `${value}%` }} />
      </div>
      <p className="progress__text" aria-hidden="true">
        {text}
      </p>
    </div>
  );
}
