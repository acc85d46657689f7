/**
 * /u/shortcuts/ (library-playlists-account.md §2 "settings page where shortcuts are disabled", §6 "Shortcuts can be
 * disabled by user setting and are off on mobile"; WCAG 2.1.4): single-key shortcuts on or off, kept on the account
 * (PUT /api/v1/account/shortcuts/), and every shortcut listed from the registry.
 */
import { SHORTCUT_MESSAGES } from '@lectern/core';
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Navigate } from 'react-router';
import { api } from '../../api/client.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { Notice } from '../../components/Notice.tsx';
import { PageLoading } from '../../components/PageLoading.tsx';
import { SHORTCUTS } from '../../shared/shortcuts/registry.ts';
import { ShortcutList } from '../../shared/shortcuts/ShortcutList.tsx';
import { useShortcutSetting } from '../../shared/shortcuts/ShortcutsRoot.tsx';
import { useSession, useSignInPath } from '../../shared/useSession.ts';
import './AccountPage.css';

export function ShortcutsPage() {
  const { profile, isLoading } = useSession();
  const signIn = useSignInPath(!isLoading && !profile);
  const queryClient = useQueryClient();
  const setting = useShortcutSetting();
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const hintId = useId();
  if (isLoading || (profile && !setting.known)) return <PageLoading />;
  if (!profile) return <Navigate to={signIn} replace />;
  const key = queryKeys.shortcutSetting(profile.user_uuid);

  const choose = async (enabled: boolean) => {
    setBusy(true);
    setSaid(null);
    // The box follows the click at once (and the keys with it); a refusal puts it back.
    queryClient.setQueryData(key, { enabled });
    try {
      queryClient.setQueryData(key, await api.putShortcutSetting({ enabled }));
      setSaid({ tone: 'success', text: enabled ? SHORTCUT_MESSAGES.savedOn : SHORTCUT_MESSAGES.savedOff });
    } catch {
      queryClient.setQueryData(key, { enabled: !enabled });
      setSaid({ tone: 'error', text: SHORTCUT_MESSAGES.saveFailed });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="page account">
      <title>{`${SHORTCUT_MESSAGES.pageTitle} · Lectern`}</title>
      <h1 className="account__heading">{SHORTCUT_MESSAGES.pageTitle}</h1>
      <p className="account__muted">{SHORTCUT_MESSAGES.pageLead}</p>
      <section className="account__section" aria-labelledby="single-keys">
        <h2 id="single-keys">{SHORTCUT_MESSAGES.singleKeyLabel}</h2>
        <label className="account__check">
          <input type="checkbox" checked={setting.enabled} disabled={busy} aria-describedby={hintId} onChange={(e) => void choose(e.target.checked)} />
          <span>{SHORTCUT_MESSAGES.singleKeyToggle}</span>
        </label>
        <p className="account__muted" id={hintId}>
          {SHORTCUT_MESSAGES.singleKeyHint} {SHORTCUT_MESSAGES.onPhones}
        </p>
        {said ? <Notice tone={said.tone}>{said.text}</Notice> : null}
      </section>
      <section className="account__section" aria-labelledby="all-shortcuts">
        <h2 id="all-shortcuts">{SHORTCUT_MESSAGES.allShortcuts}</h2>
        <ShortcutList defs={SHORTCUTS} markSingleKeys />
      </section>
    </div>
  );
}

export default ShortcutsPage;
