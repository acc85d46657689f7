/**
 * The one registry every keyboard shortcut goes through (library-playlists-account.md §9 "Shortcuts"; docs/decisions.md
 * "Keyboard shortcuts"; docs/decisions.md "Keyboard shortcuts"). The list below is the whole set: the help popup and
 * /u/shortcuts/ are made from it. Pages bind handlers to its entries (`useShortcut`); ONE keydown listener on the
 * window, plus the chapter frame's keys forwarded to `dispatch`, decide which handler a key goes to:
 * - a player's or the reader's handler before a site-wide one (`/` in the reader searches the book, not the site);
 *   among handlers of one scope the one bound last;
 * - never with Ctrl, Alt or Meta (the browser's and the system's), never after a widget took the key (defaultPrevented);
 * - while typing in a field (input, textarea, select, contenteditable) only the entries marked `inFields` (Esc);
 * - single-key shortcuts (a letter, digit or sign: WCAG 2.1.4) not when the reader turned them off or on a
 *   touch-only device (§6 "off on mobile");
 * - site-wide ones for signed-in readers only (§6 "Logged-in users get … shortcuts");
 * - none but Esc while a page declares the flag that turns them off (reader.md §5 "page flag").
 * Widgets' own keys (a dialog's Tab cycle and Escape, menus, the search combobox, tab lists) stay on the widget, as
 * the ARIA patterns have them; they take the key before it reaches the window.
 */
import { SHORTCUT_MESSAGES } from '@lectern/core';

export type ShortcutScope = 'site' | 'reader' | 'player';
export type ShortcutId = keyof typeof SHORTCUT_MESSAGES.labels;

/** What a shortcut needs of a key event (a frame's events come from another window: no instanceof). */
export type KeyLike = Pick<KeyboardEvent, 'key' | 'shiftKey' | 'ctrlKey' | 'altKey' | 'metaKey' | 'defaultPrevented' | 'target' | 'preventDefault'>;

export interface ShortcutDef {
  id: ShortcutId;
  scope: ShortcutScope;
  /** the keys as shown, each a list of keys pressed together (['Shift', '/']) */
  keys: readonly (readonly string[])[];
  /** a printable character without Ctrl/Alt/Meta: WCAG 2.1.4's kind, turned off with the setting and on phones */
  singleKey: boolean;
  /** works while typing in a field */
  inFields?: boolean;
  /** for signed-in readers only */
  signedIn?: boolean;
  /** the handler decides on the browser's default itself (the reader's page keys scroll natively in scroll mode) */
  ownDefault?: boolean;
  matches(e: KeyLike): boolean;
}

const K = SHORTCUT_MESSAGES.keyNames;
const letter = (l: string) => (e: KeyLike) => !e.shiftKey && e.key.toLowerCase() === l;
const PAGE_KEYS = new Set(['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', ' ', 'PageUp', 'PageDown', 'Home', 'End']);

export const SHORTCUTS: readonly ShortcutDef[] = [
  { id: 'close', scope: 'site', keys: [[K.escape]], singleKey: false, inFields: true, matches: (e) => e.key === 'Escape' },
  { id: 'help', scope: 'site', keys: [[K.shift, '/']], singleKey: true, matches: (e) => e.key === '?' },
  { id: 'search', scope: 'site', keys: [['/']], singleKey: true, signedIn: true, matches: (e) => e.key === '/' },
  { id: 'top', scope: 'site', keys: [['U']], singleKey: true, signedIn: true, matches: letter('u') },
  { id: 'next-card', scope: 'site', keys: [['J']], singleKey: true, signedIn: true, matches: letter('j') },
  { id: 'previous-card', scope: 'site', keys: [['K']], singleKey: true, signedIn: true, matches: letter('k') },
  { id: 'reject', scope: 'site', keys: [['D']], singleKey: true, signedIn: true, matches: letter('d') },
  { id: 'open', scope: 'site', keys: [[K.shift, K.enter]], singleKey: false, signedIn: true, matches: (e) => e.key === 'Enter' && e.shiftKey },
  { id: 'book-search', scope: 'reader', keys: [['/']], singleKey: true, matches: (e) => e.key === '/' },
  { id: 'contents', scope: 'reader', keys: [['T']], singleKey: true, matches: (e) => e.key === 't' || e.key === 'T' },
  { id: 'font-smaller', scope: 'reader', keys: [['F']], singleKey: true, matches: (e) => e.key === 'f' },
  { id: 'font-larger', scope: 'reader', keys: [['G']], singleKey: true, matches: (e) => e.key === 'g' },
  { id: 'immersive', scope: 'reader', keys: [['H']], singleKey: true, matches: (e) => e.key === 'h' || e.key === 'H' },
  { id: 'skip-structure', scope: 'reader', keys: [['E']], singleKey: true, matches: (e) => e.key === 'e' || e.key === 'E' },
  { id: 'page', scope: 'reader', keys: [[K.arrows], [K.space], [K.pageKeys]], singleKey: false, ownDefault: true, matches: (e) => PAGE_KEYS.has(e.key) },
  { id: 'play', scope: 'player', keys: [[K.space], ['K']], singleKey: false, matches: (e) => e.key === ' ' || letter('k')(e) },
  { id: 'back', scope: 'player', keys: [['←']], singleKey: false, matches: (e) => e.key === 'ArrowLeft' },
  { id: 'forward', scope: 'player', keys: [['→']], singleKey: false, matches: (e) => e.key === 'ArrowRight' },
  { id: 'fullscreen', scope: 'player', keys: [['F']], singleKey: true, matches: letter('f') },
  { id: 'captions', scope: 'player', keys: [['C']], singleKey: true, matches: letter('c') },
  { id: 'seek', scope: 'player', keys: [[K.digits]], singleKey: true, matches: (e) => !e.shiftKey && /^[1-9]$/.test(e.key) },
];

const SCOPE_RANK: Record<ShortcutScope, number> = { player: 0, reader: 1, site: 2 };
export const SCOPES: readonly ShortcutScope[] = ['site', 'reader', 'player'];

/** A handler returns false when the key is not for it here (the next handler gets it); anything else: handled. */
export type ShortcutHandler = (e: KeyLike) => boolean | void;

/** Typing in a field (duck-typed: frame elements come from another window). */
export function isTyping(target: EventTarget | null): boolean {
  const t = target && typeof target === 'object' && 'tagName' in target ? (target as HTMLElement) : null;
  return !!t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
}

export interface ShortcutConditions {
  signedIn: boolean;
  /** the reader's setting (library-playlists-account.md §6 "disabled by user setting") */
  singleKeysOn: boolean;
  /** a touch-only device: a phone or a tablet without mouse or trackpad (§6 "off on mobile") */
  touchOnly: boolean;
}

interface Binding {
  def: ShortcutDef;
  handler: ShortcutHandler;
  order: number;
}

export class ShortcutRegistry {
  private bindings: Binding[] = [];
  private order = 0;
  private pageFlags = 0;
  private conditions: ShortcutConditions = { signedIn: false, singleKeysOn: true, touchOnly: false };
  private readonly watchers = new Set<() => void>();
  private version = 0;

  /** Binds a handler to an entry; returns the unbinding. */
  bind(id: ShortcutId, handler: ShortcutHandler): () => void {
    const def = SHORTCUTS.find((d) => d.id === id);
    if (!def) throw new Error(`no shortcut ${id}`);
    const binding: Binding = { def, handler, order: ++this.order };
    this.bindings.push(binding);
    this.changed();
    return () => {
      this.bindings = this.bindings.filter((b) => b !== binding);
      this.changed();
    };
  }

  configure(next: Partial<ShortcutConditions>): void {
    const merged = { ...this.conditions, ...next };
    if (Object.entries(merged).every(([k, v]) => this.conditions[k as keyof ShortcutConditions] === v)) return;
    this.conditions = merged;
    this.changed();
  }

  /** A page's flag that turns the shortcuts off while it is shown (reader.md §5); returns its withdrawal. */
  declarePageOff(): () => void {
    this.pageFlags++;
    this.changed();
    let withdrawn = false;
    return () => {
      if (withdrawn) return;
      withdrawn = true;
      this.pageFlags--;
      this.changed();
    };
  }

  /** Whether an entry may fire now, apart from the key event itself. */
  allowed(def: ShortcutDef): boolean {
    if (this.pageFlags > 0 && def.id !== 'close') return false;
    if (def.singleKey && (!this.conditions.singleKeysOn || this.conditions.touchOnly)) return false;
    if (def.signedIn && !this.conditions.signedIn) return false;
    return true;
  }

  /** Gives the key to the handler it is for; true when one took it. */
  dispatch = (e: KeyLike): boolean => {
    if (e.defaultPrevented || e.ctrlKey || e.altKey || e.metaKey) return false;
    const typing = isTyping(e.target);
    const candidates = this.bindings
      .filter((b) => b.def.matches(e) && (!typing || b.def.inFields) && this.allowed(b.def))
      .sort((a, b) => SCOPE_RANK[a.def.scope] - SCOPE_RANK[b.def.scope] || b.order - a.order);
    for (const b of candidates) {
      if (b.handler(e) === false) continue;
      if (!b.def.ownDefault) e.preventDefault();
      return true;
    }
    return false;
  };

  /** The entries that work on the page now (bound and allowed), in the list's order: what the help popup shows. */
  available(): ShortcutDef[] {
    const bound = new Set(this.bindings.map((b) => b.def));
    const here = SHORTCUTS.filter((d) => bound.has(d) && this.allowed(d));
    // A site-wide key the reader or a player takes for itself here (`/`) is listed once, as theirs.
    const taken = new Set(here.filter((d) => d.scope !== 'site').map((d) => JSON.stringify(d.keys)));
    return here.filter((d) => d.scope !== 'site' || !taken.has(JSON.stringify(d.keys)));
  }

  /** For useSyncExternalStore: a number that changes with what is bound and allowed. */
  snapshot = (): number => this.version;

  subscribe = (watcher: () => void): (() => void) => {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  };

  private changed() {
    this.version++;
    for (const w of this.watchers) w();
  }
}

/** The app's registry. Its one window listener is added with the first binding. */
export const shortcuts = new ShortcutRegistry();
let listening = false;
export function listenOnce(registry: ShortcutRegistry = shortcuts): void {
  if (listening || typeof window === 'undefined' || registry !== shortcuts) return;
  listening = true;
  window.addEventListener('keydown', (e) => registry.dispatch(e));
}
