/**
 * The annotation pop-ups over the chapter (reader.md §2, §4; docs/decisions.md "Annotations in the reader"): the adder
 * above a selection (Copy, Add Highlight, Add Note, and Add preview content for preview creators), the editor (markdown
 * note up to 750 characters, the quote cut to 750 with an ellipsis, tags split on whitespace, public or private; Escape
 * cancels, Enter without Shift saves), the viewer of a tapped highlight (Copy, Edit Note / Add Note / Undo Highlight,
 * Edit Preview, a note's deletion behind the §8 confirm; Edit and Delete only where §6 permits), the share block of a
 * public note with a card, and the store's notices.
 */
import {
  ANNOTATION_MESSAGES,
  ANNOTATION_TIMING,
  CONSUMER_KEY,
  NOTE_MAX_LENGTH,
  pageHighlightPrivacy,
  permits,
  sharingOf,
  splitTags,
  truncateQuote,
  type AccountProfile,
  type AnnotationPrincipal,
  type Annotation,
} from '@lectern/core';
import { useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import { createPortal } from 'react-dom';
import { Button } from '../../../components/Button.tsx';
import { DiscardConfirm } from '../../../components/Modal.tsx';
import { Icon } from '../../../components/Icon.tsx';
import type { RangeDescription } from './anchoring.ts';
import { NoteMarkdown } from './NoteMarkdown.tsx';
import { PRIVATE, type Box, type NoteFields, type useChapterAnnotations } from './useChapterAnnotations.ts';

/**
 * New highlights' sharing as the page declares it (reader.md §4): public when it declares public highlight privacy,
 * private otherwise and always when notes are forced private. Read when used: the page's attributes are the server's.
 */
function pagePrivacy() {
  const declared = pageHighlightPrivacy(document.documentElement);
  return { ...declared, initial: declared.defaultPublic ? { ...PRIVATE, view: true } : PRIVATE };
}
import './AnnotationLayer.css';

type Layer = ReturnType<typeof useChapterAnnotations>;

export interface EditorState {
  /** a new annotation from this selection, or an existing one */
  target: { kind: 'new'; description: RangeDescription; preview: boolean } | { kind: 'existing'; annotation: Annotation };
  box: Box;
}

/** Where a pop-up goes: above the box when there is room, else below; kept on the screen. */
function place(box: Box, width: number, height: number): { left: number; top: number } {
  const margin = 8;
  const left = Math.min(Math.max(margin, (box.left + box.right) / 2 - width / 2), window.innerWidth - width - margin);
  const above = box.top - height - margin;
  const top = above >= margin ? above : box.bottom + margin;
  return { left: Math.max(margin, left), top: Math.max(margin, Math.min(top, window.innerHeight - height - margin)) };
}

async function copy(text: string) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    /* the browser refused (no permission): nothing else to do */
  }
}

export function AnnotationLayer({ layer, profile }: { layer: Layer; profile: AccountProfile }) {
  const [editor, setEditor] = useState<EditorState | null>(null);
  const preview = profile.account.roles.includes('preview-creator');
  const principal = { userId: profile.user_uuid, consumerKey: CONSUMER_KEY, isAdmin: profile.account.roles.includes('admin') };
  const { selection, viewing } = layer;
  // One highlight per selection: the adder stays up until the store answers, and a second click meanwhile (a double
  // click) sent a second, identical highlight.
  const highlighting = useRef(false);
  const [savingHighlight, setSavingHighlight] = useState(false);
  const highlight = async (description: RangeDescription) => {
    if (highlighting.current) return;
    highlighting.current = true;
    setSavingHighlight(true);
    try {
      await layer.create(description, { text: '', tags: [], sharing: pagePrivacy().initial });
    } finally {
      highlighting.current = false;
      setSavingHighlight(false);
    }
  };

  const openEditor = (state: EditorState) => {
    layer.closeViewer();
    setEditor(state);
  };

  return createPortal(
    <>
      {selection && !editor ? (
        <Popup box={selection.box} width={300} height={48} className="annotation-adder" label="Annotate the selection" onEscape={layer.clearSelection}>
          <button type="button" onClick={() => void copy(selection.description.quote)}>
            <Icon name="copy" size={16} /> Copy
          </button>
          <button type="button" disabled={savingHighlight} onClick={() => void highlight(selection.description)}>
            <Icon name="edit" size={16} /> Add Highlight
          </button>
          <button type="button" onClick={() => openEditor({ target: { kind: 'new', description: selection.description, preview: false }, box: selection.box })}>
            <Icon name="plus" size={16} /> Add Note
          </button>
          {preview ? (
            <button type="button" onClick={() => openEditor({ target: { kind: 'new', description: selection.description, preview: true }, box: selection.box })}>
              Add preview content
            </button>
          ) : null}
        </Popup>
      ) : null}

      {viewing && !editor ? (
        <Viewer
          annotation={viewing.annotation}
          box={viewing.box}
          mayUpdate={permits(viewing.annotation, 'update', principal)}
          mayDelete={permits(viewing.annotation, 'delete', principal)}
          onClose={layer.closeViewer}
          onEdit={() => openEditor({ target: { kind: 'existing', annotation: viewing.annotation }, box: viewing.box })}
          onClearNote={async () => {
            const a = viewing.annotation;
            await layer.update(a, { text: '', tags: a.tags, sharing: sharingOf(a.permissions) });
          }}
          onUndo={async () => {
            if (await layer.remove(viewing.annotation)) layer.closeViewer();
          }}
        />
      ) : null}

      {editor ? (
        <Editor
          state={editor}
          principal={principal}
          onCancel={() => setEditor(null)}
          onSave={async (fields) => {
            const t = editor.target;
            const saved =
              t.kind === 'new' ? await layer.create(t.description, { ...fields, preview: t.preview }) : await layer.update(t.annotation, fields);
            if (saved) setEditor(null);
          }}
        />
      ) : null}

      <div className="annotation-notice" role="status" aria-live="polite">
        {layer.notice ? (
          <p>
            <Icon name="alert" size={16} />
            <span>{layer.notice}</span>
          </p>
        ) : null}
      </div>
    </>,
    document.body,
  );
}

function Popup({
  box,
  width,
  height,
  className,
  label,
  onEscape,
  children,
  role = 'toolbar',
  hover,
}: {
  box: Box;
  width: number;
  height: number;
  className: string;
  label: string;
  onEscape: () => void;
  children: React.ReactNode;
  role?: 'toolbar' | 'dialog';
  /** the pointer entering and leaving the pop-up */
  hover?: { onPointerEnter: (e: React.PointerEvent) => void; onPointerLeave: (e: React.PointerEvent) => void };
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ width, height });
  // Placed by its real size once drawn (only a change of size renders again). Measured after every render on purpose:
  // what is inside (children, the note being typed) changes its size without any of its props changing.
  // eslint-disable-next-line react-hooks/exhaustive-deps -- no dependency list: every render; settles as setSize only follows a change
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && (el.offsetWidth !== size.width || el.offsetHeight !== size.height)) setSize({ width: el.offsetWidth, height: el.offsetHeight });
  });
  const at = place(box, Math.min(size.width, window.innerWidth - 16), size.height);
  return (
    <div
      ref={ref}
      role={role}
      aria-label={label}
      className={`annotation-popup ${className}`}
      style={{ left: at.left, top: at.top }}
      {...hover}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          onEscape();
        }
      }}
    >
      {children}
    </div>
  );
}

function Viewer({
  annotation: a,
  box,
  mayUpdate,
  mayDelete,
  onClose,
  onEdit,
  onClearNote,
  onUndo,
}: {
  annotation: Annotation;
  box: Box;
  mayUpdate: boolean;
  mayDelete: boolean;
  onClose: () => void;
  onEdit: () => void;
  onClearNote: () => Promise<void>;
  onUndo: () => Promise<void>;
}) {
  const [confirming, setConfirming] = useState(false);
  const hasNote = a.text.trim() !== '';
  const isPreview = a.annotation_type === 'preview_annotation';
  const first = useRef<HTMLButtonElement>(null);
  useEffect(() => first.current?.focus({ preventScroll: true }), [a.id]);
  // A click elsewhere in the app closes it (a tap in the chapter is handled by the chapter frame).
  useEffect(() => {
    const onDown = (e: PointerEvent) => {
      if (!(e.target as Element | null)?.closest?.('.annotation-viewer')) onClose();
    };
    document.addEventListener('pointerdown', onDown);
    return () => document.removeEventListener('pointerdown', onDown);
  }, [onClose]);
  // §4/§9's hide delay (docs/decisions.md): a mouse that leaves the viewer closes it 250 ms later unless it comes
  // back; not while the delete confirm asks, and never for touch or the keyboard (nothing leaves).
  const hideTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(hideTimer.current), []);
  const hover = {
    onPointerEnter: () => clearTimeout(hideTimer.current),
    onPointerLeave: (e: React.PointerEvent) => {
      if (e.pointerType !== 'mouse' || confirming) return;
      clearTimeout(hideTimer.current);
      hideTimer.current = setTimeout(onClose, ANNOTATION_TIMING.viewerHideMs);
    },
  };
  return (
    <Popup box={box} width={340} height={160} className="annotation-viewer" label={hasNote ? 'Note' : 'Highlight'} onEscape={onClose} role="dialog" hover={hover}>
      {hasNote ? <NoteMarkdown text={a.text} className="annotation-viewer__note" /> : null}
      {a.tags.length ? (
        <ul className="annotation-viewer__tags" aria-label="Tags">
          {a.tags.map((t) => (
            <li key={t}>{t}</li>
          ))}
        </ul>
      ) : null}
      {a.is_public && a.card_url ? (
        <p className="annotation-viewer__share">
          Shared: <a href={a.card_url}>link to this note</a>
          <button type="button" className="annotation-viewer__link-button" onClick={() => void copy(new URL(a.card_url!, window.location.href).href)}>
            Copy link
          </button>
        </p>
      ) : null}
      {confirming ? (
        <div className="annotation-viewer__confirm" role="alertdialog" aria-label={ANNOTATION_MESSAGES.deleteConfirm}>
          <p>{ANNOTATION_MESSAGES.deleteConfirm}</p>
          <div className="annotation-viewer__actions">
            <Button variant="secondary" size="sm" onClick={() => setConfirming(false)}>
              {ANNOTATION_MESSAGES.deleteNo}
            </Button>
            {/* void: the layer's update shows its own failure (its notice) and resolves either way */}
            <Button variant="danger" size="sm" onClick={() => void onClearNote().then(() => setConfirming(false))}>
              {ANNOTATION_MESSAGES.deleteYes}
            </Button>
          </div>
        </div>
      ) : (
        <div className="annotation-viewer__actions">
          <button type="button" ref={first} onClick={() => void copy(a.quote)}>
            <Icon name="copy" size={16} /> Copy
          </button>
          {mayUpdate ? (
            <button type="button" onClick={onEdit}>
              <Icon name="edit" size={16} /> {isPreview ? 'Edit Preview' : hasNote ? 'Edit Note' : 'Add Note'}
            </button>
          ) : null}
          {mayDelete && hasNote && mayUpdate ? (
            <button type="button" onClick={() => setConfirming(true)}>
              <Icon name="trash" size={16} /> Delete Note
            </button>
          ) : null}
          {mayDelete && !hasNote ? (
            <button type="button" onClick={() => void onUndo()}>
              <Icon name="close" size={16} /> Undo Highlight
            </button>
          ) : null}
        </div>
      )}
    </Popup>
  );
}

/** The note editor; exported for its component test. */
export function Editor({ state, principal, onCancel, onSave }: { state: EditorState; principal: AnnotationPrincipal; onCancel: () => void; onSave: (f: NoteFields) => Promise<void> }) {
  const existing = state.target.kind === 'existing' ? state.target.annotation : null;
  // Who may see and change a note is for those who may administer it (§6): its author, or anyone it was given to.
  const mayShare = !existing || permits(existing, 'admin', principal);
  const quote = state.target.kind === 'new' ? state.target.description.quote : state.target.annotation.quote;
  const [text, setText] = useState(existing?.text ?? '');
  const [tags, setTags] = useState(existing?.tags.join(' ') ?? '');
  const [privacy] = useState(pagePrivacy);
  const [sharing, setSharing] = useState(() => {
    const chosen = existing ? sharingOf(existing.permissions) : privacy.initial;
    return privacy.forcedPrivate ? { ...chosen, view: false } : chosen;
  });
  const choose = (key: keyof typeof sharing) => (e: { target: { checked: boolean } }) => setSharing((s) => ({ ...s, [key]: e.target.checked }));
  const [saving, setSaving] = useState(false);
  // Typed but not saved: Escape asks before throwing it away, as the create-playlist dialog does (Modal `unsaved`);
  // Cancel is the explicit way out and discards at once, as there.
  const unsaved = text !== (existing?.text ?? '') || tags !== (existing?.tags.join(' ') ?? '');
  const [asking, setAsking] = useState(false);
  const requestCancel = () => {
    if (unsaved) setAsking(true);
    else onCancel();
  };
  const ids = { text: useId(), tags: useId(), count: useId(), forced: useId() };
  const textRef = useRef<HTMLTextAreaElement>(null);
  useEffect(() => textRef.current?.focus({ preventScroll: true }), []);
  const save = async () => {
    if (saving) return;
    setSaving(true);
    await onSave({ text: text.slice(0, NOTE_MAX_LENGTH), tags: splitTags(tags), sharing: privacy.forcedPrivate ? { ...sharing, view: false } : sharing });
    setSaving(false);
  };
  const onKey = (e: ReactKeyboardEvent) => {
    // Escape is the Popup's (onEscape): handled here as well, it cancelled twice.
    if (e.key === 'Enter' && !e.shiftKey && (e.target as HTMLElement).tagName !== 'BUTTON') {
      e.preventDefault();
      void save();
    }
  };
  return (
    <>
      <Popup box={state.box} width={360} height={300} className="annotation-editor" label={existing?.text ? 'Edit note' : 'Add note'} onEscape={requestCancel} role="dialog">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
          onKeyDown={onKey}
        >
          <blockquote className="annotation-editor__quote">{truncateQuote(quote)}</blockquote>
          <label htmlFor={ids.text} className="visually-hidden">
            Note
          </label>
          <textarea
            id={ids.text}
            ref={textRef}
            value={text}
            maxLength={NOTE_MAX_LENGTH}
            placeholder={ANNOTATION_MESSAGES.notePlaceholder}
            aria-describedby={ids.count}
            rows={4}
            onChange={(e) => setText(e.target.value)}
          />
          <p id={ids.count} className="annotation-editor__count">
            {text.length} / {NOTE_MAX_LENGTH}
          </p>
          <label htmlFor={ids.tags} className="annotation-editor__label">
            Tags
          </label>
          <input id={ids.tags} type="text" value={tags} placeholder="separated by spaces" onChange={(e) => setTags(e.target.value)} />
          {mayShare ? (
            <fieldset className="annotation-editor__sharing">
              <legend className="visually-hidden">Who else may see and change it</legend>
              <label className="annotation-editor__public">
                <input
                  type="checkbox"
                  checked={sharing.view}
                  onChange={choose('view')}
                  disabled={privacy.forcedPrivate}
                  aria-describedby={privacy.forcedPrivate ? ids.forced : undefined}
                />{' '}
                {ANNOTATION_MESSAGES.publicOption}
              </label>
              {privacy.forcedPrivate ? (
                <p id={ids.forced} className="annotation-editor__hint">
                  {ANNOTATION_MESSAGES.forcedPrivate}
                </p>
              ) : null}
              <label className="annotation-editor__public">
                <input type="checkbox" checked={sharing.edit} onChange={choose('edit')} /> Other readers of this library can edit it
              </label>
              {principal.isAdmin ? (
                <label className="annotation-editor__public">
                  <input type="checkbox" checked={sharing.admin} onChange={choose('admin')} /> Other readers can change who may see and edit it
                </label>
              ) : null}
            </fieldset>
          ) : null}
          <div className="annotation-editor__actions">
            <Button variant="secondary" size="sm" onClick={onCancel}>
              Cancel
            </Button>
            <Button type="submit" size="sm" busy={saving}>
              Save
            </Button>
          </div>
        </form>
      </Popup>
      <DiscardConfirm
        open={asking}
        onKeep={() => setAsking(false)}
        onDiscard={() => {
          setAsking(false);
          onCancel();
        }}
      />
    </>
  );
}
