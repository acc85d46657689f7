/**
 * The shell's part of the shortcuts (shared/shortcuts/registry.ts): tells the registry who is signed in, the
 * reader's setting (GET /api/v1/account/shortcuts/) and whether the device is touch-only; binds the site's own keys
 * (Shift+/ the help popup, U the top of the page); and is the help popup, made from what the registry says works on
 * the page now.
 */
import { SHORTCUT_MESSAGES, SHORTCUTS_PAGE_PATH } from '@lectern/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/client.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { Modal } from '../../components/Modal.tsx';
import { browserStorage } from '../storage.ts';
import { useSession } from '../useSession.ts';
import { shortcuts } from './registry.ts';
import { ShortcutList } from './ShortcutList.tsx';
import { useAvailableShortcuts, useShortcut } from './useShortcut.ts';

/**
 * A touch-only device (docs/decisions.md "Keyboard shortcuts"): no pointer that hovers and a coarse primary pointer,
 * i.e. a phone or a tablet without mouse or trackpad. Not the window's width: a narrow desktop window has a keyboard.
 */
export const TOUCH_ONLY_QUERY = '(hover: none) and (pointer: coarse)';

function useTouchOnly(): boolean {
  const [touchOnly, setTouchOnly] = useState(() => typeof matchMedia === 'function' && matchMedia(TOUCH_ONLY_QUERY).matches);
  useEffect(() => {
    if (typeof matchMedia !== 'function') return;
    const query = matchMedia(TOUCH_ONLY_QUERY);
    const onChange = () => setTouchOnly(query.matches);
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);
  return touchOnly;
}

/** Where this browser keeps the reader's last known setting, so a page load applies it before the server answers. */
const storedKey = (userUuid: string) => `lectern.shortcuts.${userUuid}`;

/**
 * The signed-in reader's setting: as this browser last knew it until the server answers (a reader who turned single
 * keys off is not given them back for the first moments of every page load), on (the default) for visitors and for
 * a browser that has never known it.
 */
export function useShortcutSetting(): { enabled: boolean; known: boolean } {
  const { profile } = useSession();
  const uuid = profile?.user_uuid ?? '';
  const setting = useQuery({
    queryKey: queryKeys.shortcutSetting(uuid),
    queryFn: ({ signal }) => api.getShortcutSetting(signal),
    enabled: !!profile,
    staleTime: Infinity,
  });
  const answered = setting.isSuccess ? setting.data.enabled : undefined;
  useEffect(() => {
    if (uuid && answered !== undefined) browserStorage()?.setItem(storedKey(uuid), answered ? 'on' : 'off');
  }, [uuid, answered]);
  const stored = uuid ? browserStorage()?.getItem(storedKey(uuid)) : null;
  return { enabled: answered ?? stored !== 'off', known: !profile || setting.isSuccess };
}

/** What works on the page now: read only while the popup is open. */
function HelpList() {
  const available = useAvailableShortcuts();
  const own = available.filter((d) => d.id !== 'close' && d.id !== 'help');
  return (
    <>
      {own.length ? null : <p className="shortcuts-help__none">{SHORTCUT_MESSAGES.noneHere}</p>}
      <ShortcutList defs={available} />
    </>
  );
}

function HelpPopup({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { profile } = useSession();
  return (
    <Modal open={open} onClose={onClose} title={SHORTCUT_MESSAGES.helpTitle}>
      <HelpList />
      {profile ? (
        <p className="shortcuts-help__manage">
          <Link to={SHORTCUTS_PAGE_PATH} onClick={onClose}>
            {SHORTCUT_MESSAGES.manage}
          </Link>
        </p>
      ) : null}
    </Modal>
  );
}

export function ShortcutsRoot() {
  const { profile } = useSession();
  const { enabled } = useShortcutSetting();
  const touchOnly = useTouchOnly();
  const [helpOpen, setHelpOpen] = useState(false);
  useEffect(() => shortcuts.configure({ signedIn: !!profile, singleKeysOn: enabled, touchOnly }), [profile, enabled, touchOnly]);
  useShortcut('help', () => setHelpOpen(true));
  useShortcut('top', () => {
    if (window.scrollY === 0) return false;
    window.scrollTo({ top: 0 });
  });
  return <HelpPopup open={helpOpen} onClose={() => setHelpOpen(false)} />;
}
