/**
 * A title's cover and its scripts flag on its console page (docs/decisions.md "The console's titles"). The cover is
 * checked by the server (its bytes, size and pixels); the chooser only offers the kinds it takes. Scripts are offered
 * only when the server has a scripted origin; they are kept from the book at import, so allowing them takes effect with
 * its next edition.
 */
import { CONSOLE_MESSAGES as M, type AdminTitleDetail } from '@lectern/core';
import { useRef, useState } from 'react';
import { adminApi } from '../../api/admin.ts';
import { Button } from '../../components/Button.tsx';
import { Cover } from '../../components/Cover.tsx';
import { ActionStatus, useAction } from './useAction.tsx';

const COVER_KINDS = 'image/jpeg,image/png,image/webp';

export function CoverPanel({ title, onSaved }: { title: AdminTitleDetail; onSaved: (fresh: AdminTitleDetail) => void }) {
  const action = useAction();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const send = async () => {
    if (!file) return;
    const done = await action.run(async () => onSaved(await adminApi.setCover(title.book_id, file)), () => M.coverSaved);
    if (done && input.current) {
      input.current.value = '';
      setFile(null);
    }
  };
  return (
    <section className="admin-panel" aria-labelledby="admin-title-cover">
      <h2 id="admin-title-cover">Cover</h2>
      <div className="admin-cover">
        <Cover key={title.cover_url ?? 'none'} title={title.title} authors={title.authors} src={title.cover_url} />
        <div>
          <p className="admin-hint">{M.coverHint}</p>
          <label className="admin-file">
            <span>{M.coverChoose}</span>
            <input ref={input} type="file" name="cover" accept={COVER_KINDS} aria-invalid={action.errors.file ? true : undefined} onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
          </label>
          <div className="admin-form__actions">
            <Button variant="secondary" busy={action.busy} disabled={!file} onClick={() => void send()}>
              {M.coverUpload}
            </Button>
          </div>
          <ActionStatus action={action} />
        </div>
      </div>
    </section>
  );
}

export function ScriptsPanel({ title, onSaved }: { title: AdminTitleDetail; onSaved: (fresh: AdminTitleDetail) => void }) {
  const action = useAction();
  // without a scripted origin nothing is offered (the server would refuse it); a flag set before is shown
  if (!title.scripts_available && !title.allow_scripts) return null;
  return (
    <section className="admin-panel" aria-labelledby="admin-title-scripts">
      <h2 id="admin-title-scripts">Scripts</h2>
      <p className="admin-hint">{M.scriptsHint}</p>
      <label className="admin-check">
        <input
          type="checkbox"
          checked={title.allow_scripts}
          disabled={action.busy || (!title.scripts_available && !title.allow_scripts)}
          onChange={(e) => {
            const allow = e.target.checked;
            void action.run(async () => onSaved(await adminApi.setScripts(title.book_id, allow)), () => (allow ? M.scriptsOn : M.scriptsOff));
          }}
        />{' '}
        {M.scriptsLabel}
      </label>
      <ActionStatus action={action} />
    </section>
  );
}
