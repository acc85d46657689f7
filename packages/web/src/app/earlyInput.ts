/**
 * What a reader did on a server-rendered screen before the app hydrated it (docs/decisions.md "The first screen
 * rendered on the server"): the screen shows from the HTML, but the shortcuts' listener is the app's and a field's
 * value is only React's once it has hydrated. The page's early script (server routes/web.ts EARLY_INPUT_SCRIPT) kept
 * the keys and the selects' and textareas' values; typed text and ticked boxes stayed in the DOM. Once hydrated
 * (app/hydration.tsx), each field's value goes into React's state and the keys go through the shortcut registry once.
 */
import { EARLY_INPUT_GLOBAL } from '@lectern/core';
import type { KeyLike } from '../shared/shortcuts/registry.ts';

/** A key the early script kept: what the registry matches on, and the element it was pressed on. */
export interface EarlyKey {
  key: string;
  shiftKey: boolean;
  target: EventTarget | null;
}

/** A select's or a textarea's value as the reader left it (React sets those back to its own as it hydrates them). */
export interface EarlyField {
  field: HTMLSelectElement | HTMLTextAreaElement;
  value: string;
}

export interface EarlyInput {
  keys: EarlyKey[];
  fields: EarlyField[];
}

/** The early script's record, its listeners stopped (once taken, the app's own listeners answer); empty without one. */
export function takeEarlyInput(win: Window = window): EarlyInput {
  const holder = win as unknown as Record<string, unknown>;
  const early = holder[EARLY_INPUT_GLOBAL] as Partial<EarlyInput & { stop: () => void }> | undefined;
  delete holder[EARLY_INPUT_GLOBAL];
  if (!early || typeof early !== 'object') return { keys: [], fields: [] };
  if (typeof early.stop === 'function') early.stop();
  return { keys: Array.isArray(early.keys) ? early.keys : [], fields: Array.isArray(early.fields) ? early.fields : [] };
}

type Field = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
/** Inputs whose value is typed (a range or a colour is not; a box is ticked). */
const TEXT_TYPES = new Set(['text', 'search', 'email', 'url', 'tel', 'password', 'number']);

/**
 * The fields under `container`, each with whether it lies inside a Suspense boundary the server rendered (between
 * React's `<!--$…-->` and `<!--/$-->` comments): React hydrates such a boundary in a commit of its own, after the
 * root's, so its fields are React's only then.
 */
export function fieldsOf(container: Element): { field: Field; inBoundary: boolean }[] {
  const doc = container.ownerDocument;
  const walker = doc.createTreeWalker(container, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_COMMENT);
  const found: { field: Field; inBoundary: boolean }[] = [];
  let depth = 0;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.nodeType === Node.COMMENT_NODE) {
      const data = (node as Comment).data;
      if (data === '/$') depth = Math.max(0, depth - 1);
      else if (data.startsWith('$')) depth++;
    } else if (/^(INPUT|SELECT|TEXTAREA)$/.test((node as Element).tagName)) {
      found.push({ field: node as Field, inBoundary: depth > 0 });
    }
  }
  return found;
}

/** The element's own value setter, past React's tracker (an own property React puts on each field it manages). */
function setNativeValue(field: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement, value: string): void {
  const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(field) as object, 'value')?.set;
  if (setter) setter.call(field, value);
  else field.value = value;
}

/**
 * A typed value React did not see made React's: its tracker is told the value it rendered (through the element's
 * own property), the typed value put back past it, and an `input` event sent, so the controlled component's onChange
 * sees a change, as when a person types. The caret stays where it was.
 */
function typeInto(field: HTMLInputElement | HTMLTextAreaElement, rendered: string, typed: string): void {
  const { selectionStart: start, selectionEnd: end } = field;
  const focused = field.ownerDocument.activeElement === field;
  field.value = rendered;
  setNativeValue(field, typed);
  if (focused && start !== null && end !== null) field.setSelectionRange(start, end);
  field.dispatchEvent(new Event('input', { bubbles: true }));
}

/**
 * Each field whose DOM state differs from what React rendered (and hydrated, keeping the DOM's) taken into React's
 * state by the event React listens to for it: `input` for typed text, a click for a box (React's onChange for boxes
 * listens to clicks), `change` for a select; a select's or textarea's value from `kept` (React set those back as it
 * hydrated them). Every state is read before the first event: an onChange's render sets the DOM of the component's
 * other fields back to React's values. Returns how many were taken.
 */
export function takeIntoState(fields: readonly Field[], kept: readonly EarlyField[] = []): number {
  const lastKept = new Map(kept.map((k) => [k.field as Field, k.value]));
  const changes: (() => void)[] = [];
  for (const field of fields) {
    if (field instanceof HTMLInputElement) {
      const { checked, value, defaultValue } = field;
      if (field.type === 'checkbox' || field.type === 'radio') {
        // a radio is set by choosing another, so only the chosen one of a group differs in a way a click gives back
        if (checked === field.defaultChecked || (field.type === 'radio' && !checked)) continue;
        changes.push(() => {
          field.checked = !checked;
          field.click();
        });
      } else if (TEXT_TYPES.has(field.type) && value !== defaultValue) {
        changes.push(() => typeInto(field, defaultValue, value));
      }
      continue;
    }
    const value = lastKept.get(field);
    const rendered = field.value;
    if (value === undefined || value === rendered) continue;
    if (field instanceof HTMLTextAreaElement) changes.push(() => typeInto(field, rendered, value));
    else
      changes.push(() => {
        setNativeValue(field, value);
        field.dispatchEvent(new Event('change', { bubbles: true }));
      });
  }
  for (const change of changes) change();
  return changes.length;
}

const isTextField = (el: Element | null): el is HTMLInputElement | HTMLTextAreaElement =>
  el instanceof HTMLTextAreaElement || (el instanceof HTMLInputElement && TEXT_TYPES.has(el.type));

/**
 * The kept keys through `dispatch` (the shortcut registry's), once, in order, each on the element it was pressed on
 * (the page's body when that has gone). A key that put the focus in a text field (`/` focuses the header's search
 * box) means the characters after it were typed for that field: they go into it, as typed text does, not to the
 * shortcuts (`/`, then "dune", is a search for dune, not D, "not interested").
 */
export function replayKeys(keys: readonly EarlyKey[], dispatch: (e: KeyLike) => boolean, doc: Document = document): void {
  let typingInto: HTMLInputElement | HTMLTextAreaElement | null = null;
  let typed = '';
  for (const { key, shiftKey, target } of keys) {
    if (typingInto) {
      if (key.length === 1) typed += key;
      continue;
    }
    const on = target instanceof Node && target.isConnected ? target : doc.body;
    const taken = dispatch({ key, shiftKey, ctrlKey: false, altKey: false, metaKey: false, defaultPrevented: false, target: on, preventDefault: () => undefined });
    if (taken && isTextField(doc.activeElement)) typingInto = doc.activeElement;
  }
  if (typingInto && typed) {
    const field: HTMLInputElement | HTMLTextAreaElement = typingInto;
    typeInto(field, field.value, field.value + typed);
  }
}
