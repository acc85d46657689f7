/**
 * A title card with the signed-in user's playlist controls (library-playlists-account.md §2, §4): the queue
 * toggle and the add-to-playlist dropdown, on every title card (catalog and playlists). Anonymous visitors get
 * the plain card. The dialogs the dropdown opens are loaded on first use.
 */
import { lazy, Suspense, useRef, useState, type RefObject } from 'react';
import { dropdownLayout, PLAYLIST_MESSAGES } from '@lectern/core';
import { Icon } from '../../components/Icon.tsx';
import { Menu, type MenuItem } from '../../components/Menu.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { Tooltip } from '../../components/Tooltip.tsx';
import { TitleCard, type TitleCardProps } from '../TitleCard.tsx';
import { holds, normalizeUri, usePlaylistActions } from './actions.ts';
import { queuePhaseText, useQueueFeedback, type QueuePhase } from './queueFeedback.ts';
import { useHolding, usePlaylists, type PlaylistEntry, type PlaylistsView } from './store.ts';
import './PlaylistTitleCard.css';

const loadModals = () => import('./PlaylistModals.tsx');
const CreatePlaylistModal = lazy(() => loadModals().then((m) => ({ default: m.CreatePlaylistModal })));
const AddToAnotherModal = lazy(() => loadModals().then((m) => ({ default: m.AddToAnotherModal })));

type ItemState = 'busy' | 'error';

export function PlaylistTitleCard(props: Omit<TitleCardProps, 'controls' | 'overlay'>) {
  const playlists = usePlaylists();
  if (playlists.status === 'anonymous') return <TitleCard {...props} />;
  return <SignedInTitleCard {...props} playlists={playlists} />;
}

/** What the playlist controls act on: a title, or a chapter of one (the reader's dropdown). */
export interface PlaylistContent {
  apiUrl: string;
  contentFormat: string;
  topics: readonly { name: string; slug: string }[];
  title: string;
}

/**
 * The playlist controls' state and actions for one piece of content: the queue toggle with its feedback, one-click
 * add/remove per playlist, per-item busy/error states and the two dialogs ('Add to another playlist', 'Add to a new
 * playlist'). Shared by the title cards and the reader's chapter dropdown.
 */
function usePlaylistControls(content: PlaylistContent, playlists: PlaylistsView) {
  const apiUrl = normalizeUri(content.apiUrl);
  const actions = usePlaylistActions();
  const queue = useQueueFeedback();
  const [itemStates, setItemStates] = useState<Record<string, ItemState>>({});
  const [modal, setModal] = useState<{ kind: 'create' | 'another'; open: boolean } | null>(null);
  const menuButtonRef = useRef<HTMLButtonElement | null>(null);
  const menuRootRef = useRef<HTMLDivElement>(null);

  const inQueue = playlists.queueUrls.has(apiUrl);
  // which playlists hold it: asked for with the other cards on screen, once the list is known
  const holding = useHolding(apiUrl, playlists.status === 'ready');
  const setItem = (id: string, state: ItemState | null) =>
    setItemStates((s) => {
      const next = { ...s };
      if (state) next[id] = state;
      else delete next[id];
      return next;
    });

  const toggleQueue = async () => {
    if (queue.busy) return;
    const adding = !inQueue;
    const def = playlists.defaultPlaylist;
    if (def) setItem(def.id, 'busy');
    const ok = await queue.run(adding, () => (adding ? actions.addToQueue([apiUrl], content.topics) : actions.removeFromQueue([apiUrl])));
    if (def) setItem(def.id, ok ? null : 'error');
  };

  /** One click adds or removes; the default playlist uses the queue calls. */
  const toggle = async (playlist: PlaylistEntry) => {
    if (playlist.is_default) return toggleQueue();
    if (itemStates[playlist.id] === 'busy') return;
    setItem(playlist.id, 'busy');
    try {
      if (holds(playlist, apiUrl, holding)) await actions.removeContent(playlist.id, [apiUrl]);
      else await actions.addContent(playlist.id, [apiUrl], content.topics);
      setItem(playlist.id, null);
    } catch {
      setItem(playlist.id, 'error');
    }
  };

  const stateOf = (p: PlaylistEntry): ItemState | null => (p.is_default && queue.busy ? 'busy' : (itemStates[p.id] ?? null));

  const menu = (describedBy: string) => (
    <PlaylistMenu
      playlists={playlists}
      apiUrl={apiUrl}
      holding={holding}
      describedBy={describedBy}
      stateOf={stateOf}
      onToggle={(p) => void toggle(p)}
      onAddToAnother={() => setModal({ kind: 'another', open: true })}
      onAddToNew={() => setModal({ kind: 'create', open: true })}
      buttonRef={menuButtonRef}
      rootRef={menuRootRef}
    />
  );

  const modals = modal ? (
    <Suspense fallback={null}>
      {modal.kind === 'create' ? (
        <CreatePlaylistModal
          open={modal.open}
          onClose={() => setModal({ ...modal, open: false })}
          onExited={() => setModal(null)}
          content={{ apiUrl, contentFormat: content.contentFormat, topics: content.topics, title: content.title }}
          returnFocus={menuButtonRef}
        />
      ) : (
        <AddToAnotherModal
          open={modal.open}
          onClose={() => setModal({ ...modal, open: false })}
          onExited={() => setModal(null)}
          playlists={playlists.sorted}
          title={content.title}
          contains={(p) => holds(p, apiUrl, holding)}
          stateOf={stateOf}
          onToggle={(p) => void toggle(p)}
          returnFocus={menuButtonRef}
        />
      )}
    </Suspense>
  ) : null;

  return { inQueue, queue, toggleQueue, menu, modals, menuRootRef };
}

/** The queue toggle and the add-to-playlist menu button, as the card and the title page both show them. */
function QueueAndMenu({ controls, playlists, describedBy }: { controls: ReturnType<typeof usePlaylistControls>; playlists: PlaylistsView; describedBy: string }) {
  return (
    <>
      <QueueToggle
        inQueue={controls.inQueue}
        busy={controls.queue.busy}
        disabled={playlists.status !== 'ready'}
        unavailable={playlists.status === 'fatal'}
        describedBy={describedBy}
        onToggle={() => void controls.toggleQueue()}
      />
      {controls.menu(describedBy)}
    </>
  );
}

function SignedInTitleCard({ playlists, ...props }: Omit<TitleCardProps, 'controls' | 'overlay'> & { playlists: PlaylistsView }) {
  const { title } = props;
  const controls = usePlaylistControls({ apiUrl: title.api_url, contentFormat: title.content_format, topics: title.topics, title: title.title }, playlists);
  const { queue } = controls;
  return (
    <>
      <TitleCard
        {...props}
        className={queue.phase?.kind === 'working' ? 'title-card--working' : undefined}
        overlay={<QueueOverlay phase={queue.phase} />}
        controls={(titleId) => (
          <div className="card-controls" ref={controls.menuRootRef}>
            <QueueAndMenu controls={controls} playlists={playlists} describedBy={titleId} />
          </div>
        )}
      />
      {controls.modals}
    </>
  );
}

/**
 * The add-to-playlist dropdown for any content (reader.md §2: "A collections dropdown is attached to the chapter
 * when the user is logged in"); nothing for anonymous visitors. `describedBy` names what is being saved.
 */
export function PlaylistDropdown({ content, describedBy }: { content: PlaylistContent; describedBy: string }) {
  const playlists = usePlaylists();
  if (playlists.status === 'anonymous') return null;
  return <SignedInPlaylistDropdown content={content} describedBy={describedBy} playlists={playlists} />;
}

/**
 * The queue toggle and the add-to-playlist dropdown for one title outside a card (the title page); nothing for
 * anonymous visitors. The queue's feedback is announced in a status region.
 */
export function PlaylistControls({ content, describedBy }: { content: PlaylistContent; describedBy: string }) {
  const playlists = usePlaylists();
  if (playlists.status === 'anonymous') return null;
  return <SignedInPlaylistControls content={content} describedBy={describedBy} playlists={playlists} />;
}

function SignedInPlaylistControls({ content, describedBy, playlists }: { content: PlaylistContent; describedBy: string; playlists: PlaylistsView }) {
  const controls = usePlaylistControls(content, playlists);
  const { queue } = controls;
  const text = queuePhaseText(queue.phase);
  return (
    <div className="card-controls" ref={controls.menuRootRef}>
      <QueueAndMenu controls={controls} playlists={playlists} describedBy={describedBy} />
      {controls.modals}
      <div className="visually-hidden" role="status">
        {text}
      </div>
      {queue.phase?.kind === 'done' ? (
        <span className={`playlist-controls__note playlist-controls__note--${queue.phase.ok ? 'ok' : 'error'}`} aria-hidden="true">
          <Icon name={queue.phase.ok ? 'check' : 'alert'} size={16} />
          {text}
        </span>
      ) : null}
    </div>
  );
}

function SignedInPlaylistDropdown({ content, describedBy, playlists }: { content: PlaylistContent; describedBy: string; playlists: PlaylistsView }) {
  const controls = usePlaylistControls(content, playlists);
  return (
    <div className="card-controls" ref={controls.menuRootRef}>
      {controls.menu(describedBy)}
      {controls.modals}
      <div className="visually-hidden" role="status">
        {queuePhaseText(controls.queue.phase)}
      </div>
    </div>
  );
}

function QueueOverlay({ phase }: { phase: QueuePhase }) {
  const text = queuePhaseText(phase);
  return (
    <>
      <div className="visually-hidden" role="status">
        {text}
      </div>
      {phase?.kind === 'working' ? (
        <div className="queue-overlay" aria-hidden="true">
          <Spinner size="md" />
          <span>{text}</span>
        </div>
      ) : null}
      {phase?.kind === 'done' ? (
        <div className={`queue-banner queue-banner--${phase.ok ? 'ok' : 'error'}`} aria-hidden="true">
          <Icon name={phase.ok ? 'check' : 'alert'} size={16} />
          <span>{text}</span>
        </div>
      ) : null}
    </>
  );
}

interface QueueToggleProps {
  inQueue: boolean;
  busy: boolean;
  /** Until the list is known (loading) or when it failed. */
  disabled: boolean;
  /** The list failed fatally: the tooltip says 'Unavailable'. */
  unavailable: boolean;
  describedBy: string;
  onToggle: () => void;
}

/** The queue toggle of spec §2: pressed when the title is in the queue, labelled 'Remove from Queue' then. */
function QueueToggle({ inQueue, busy, disabled, unavailable, describedBy, onToggle }: QueueToggleProps) {
  const label = inQueue ? PLAYLIST_MESSAGES.removeFromQueueLabel : PLAYLIST_MESSAGES.addToQueueLabel;
  return (
    <Tooltip label={unavailable ? PLAYLIST_MESSAGES.unavailableTooltip : label}>
      <button
        type="button"
        className={`icon-toggle${inQueue ? ' icon-toggle--on' : ''}`}
        aria-pressed={inQueue}
        aria-label={label}
        aria-describedby={describedBy}
        aria-disabled={busy || undefined}
        disabled={disabled}
        onClick={() => {
          if (!busy) onToggle();
        }}
      >
        <Icon name="bookmark" size={18} filled={inQueue} />
      </button>
    </Tooltip>
  );
}

interface PlaylistMenuProps {
  playlists: PlaylistsView;
  apiUrl: string;
  /** the ids of the playlists holding it (useHolding); null while unknown, or to read it from whole playlists' items */
  holding?: ReadonlySet<string> | null;
  describedBy: string;
  stateOf: (p: PlaylistEntry) => ItemState | null;
  onToggle: (p: PlaylistEntry) => void;
  onAddToAnother: () => void;
  onAddToNew: () => void;
  buttonRef: RefObject<HTMLButtonElement | null>;
  rootRef: RefObject<HTMLDivElement | null>;
}

/**
 * The dropdown of §2 and §9 (`dropdownLayout`): up to 3 playlists, those holding the title first; 'Add to another
 * playlist' when there are more than 3; always 'Add to a new playlist'. The order is taken when the menu opens and
 * kept while it is open, so an item does not jump away from the pointer after a click.
 */
export function PlaylistMenu({ playlists, apiUrl, holding = null, describedBy, stateOf, onToggle, onAddToAnother, onAddToNew, buttonRef, rootRef }: PlaylistMenuProps) {
  const [frozen, setFrozen] = useState<string[] | null>(null);
  const contains = (p: PlaylistEntry) => holds(p, apiUrl, holding);
  // light playlists (no items) and no answer yet about this title: the menu waits for it
  const holdingUnknown = holding === null && playlists.playlists.some((p) => !('content' in p));
  const added = playlists.playlists.some(contains);
  const fatal = playlists.status === 'fatal';
  const tooltip = fatal ? PLAYLIST_MESSAGES.unavailableTooltip : added ? PLAYLIST_MESSAGES.addedTooltip : PLAYLIST_MESSAGES.addTooltip;

  const layout = dropdownLayout(playlists.playlists, apiUrl, contains);
  const byId = new Map(playlists.playlists.map((p) => [p.id, p]));
  const shown = holdingUnknown ? [] : frozen ? frozen.map((id) => byId.get(id)).filter((p): p is PlaylistEntry => !!p) : layout.shown.map((s) => s.playlist);

  const entries: { index: number; item: MenuItem }[] = shown.map((p, i) => {
    const state = stateOf(p);
    return {
      index: i + 1,
      item: {
        key: p.id,
        label: p.name,
        checked: contains(p),
        status: state,
        srNote: state === 'error' ? 'the last change failed' : undefined,
        onSelect: () => onToggle(p),
      },
    };
  });
  if (layout.addToAnotherIndex !== null) {
    entries.push({
      index: layout.addToAnotherIndex,
      item: { key: 'another', label: PLAYLIST_MESSAGES.addToAnotherEntry, icon: <Icon name="list" size={16} />, closeOnSelect: true, onSelect: onAddToAnother },
    });
  }
  entries.push({
    index: layout.addToNewIndex,
    item: { key: 'new', label: PLAYLIST_MESSAGES.addToNewEntry, icon: <Icon name="plus" size={16} />, closeOnSelect: true, onSelect: onAddToNew },
  });
  entries.sort((a, b) => a.index - b.index);
  const items = entries.map((e, i) => ({ ...e.item, separated: i > 0 && e.item.checked === undefined && entries[i - 1]!.item.checked !== undefined }));

  // Keep a handle on the trigger so dialogs opened from the menu can give focus back to it.
  const captureButton = () => {
    buttonRef.current = rootRef.current?.querySelector<HTMLButtonElement>('.playlist-menu__button') ?? null;
  };

  return (
    <Menu
      className="playlist-menu"
      triggerClassName={`playlist-menu__button${added ? ' playlist-menu__button--added' : ''}`}
      trigger={<Icon name={added ? 'playlist-check' : 'playlist-add'} size={20} />}
      triggerLabel={tooltip}
      triggerDescribedBy={describedBy}
      tooltip={tooltip}
      disabled={fatal}
      header={<p className="playlist-menu__heading">Save to playlist</p>}
      placeholder={
        playlists.status === 'loading' || holdingUnknown ? (
          <p className="menu__placeholder">
            <Spinner size="sm" /> Loading your playlists…
          </p>
        ) : undefined
      }
      items={items}
      onOpenChange={(open) => {
        captureButton();
        if (open) {
          setFrozen(layout.shown.map((s) => s.playlist.id));
          void loadModals();
        } else setFrozen(null);
      }}
    />
  );
}
