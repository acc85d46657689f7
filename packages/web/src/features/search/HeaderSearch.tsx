/**
 * The header's search box (library-playlists-account.md §9: debounce 1200 ms, 240 ms signed in; `/`
 * focuses it): the ARIA combobox pattern — suggestions (titles, authors, topics, publishers) in a listbox, Arrow keys
 * move through them (aria-activedescendant), Enter opens the chosen one or the search page, Escape closes then clears.
 * Choosing a suggestion is tracked with the search-selection POST (1500 ms timeout, failure only logged).
 */
import { DEFAULT_SEARCH_QUERY, SEARCH_DEBOUNCE_MS, SEARCH_DEBOUNCE_SIGNED_IN_MS, searchPaths, type Suggestion } from '@lectern/core';
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { api } from '../../api/client.ts';
import { Icon } from '../../components/Icon.tsx';
import { toAppPath } from '../../shared/links.ts';
import { useSession } from '../../shared/useSession.ts';
import { trackSelection } from '../../shared/searchChoice.ts';
import { useShortcut } from '../../shared/shortcuts/useShortcut.ts';
import './HeaderSearch.css';

const KIND_LABEL: Record<Suggestion['kind'], string> = { title: 'Titles', author: 'Authors', topic: 'Topics', publisher: 'Publishers' };

/**
 * The query of the search page on show (library-playlists-account.md §2: /search/ and /noresults/ alter the top bar);
 * none on other pages, nor for the whole library ('*').
 */
function pageQuery(pathname: string, search: string): string {
  if (!/^\/(search|noresults)\/?$/.test(pathname)) return '';
  const q = new URLSearchParams(search).get('q') ?? '';
  return q === DEFAULT_SEARCH_QUERY ? '' : q;
}

export function HeaderSearch() {
  const { profile } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const listId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const where = location.pathname + location.search;
  const [value, setValue] = useState(() => pageQuery(location.pathname, location.search));
  const [suggestions, setSuggestions] = useState<Suggestion[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  // Each new address sets the box again (while rendering, as React follows a changed input): the first query stayed
  // in it on every page after, and above a new search made from the search page's own field.
  const [followed, setFollowed] = useState(where);
  if (followed !== where) {
    setFollowed(where);
    setValue(pageQuery(location.pathname, location.search));
    setSuggestions([]);
    setOpen(false);
  }
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const blurTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const inFlight = useRef<AbortController | null>(null);
  const delay = profile ? SEARCH_DEBOUNCE_SIGNED_IN_MS : SEARCH_DEBOUNCE_MS;

  // library-playlists-account.md §9 "/ focus search", through the shortcut registry (the reader's `/` comes first
  // there: it searches the book). Where the box is folded away (narrow windows) the key is not taken.
  useShortcut('search', () => {
    const input = inputRef.current;
    if (!input || input.getClientRects().length === 0) return false;
    input.focus();
  });
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
      if (blurTimer.current) clearTimeout(blurTimer.current);
      inFlight.current?.abort();
    },
    [],
  );

  const ask = (q: string) => {
    if (timer.current) clearTimeout(timer.current);
    inFlight.current?.abort();
    if (q.trim().length < 2) {
      setSuggestions([]);
      setOpen(false);
      return;
    }
    timer.current = setTimeout(() => {
      const controller = new AbortController();
      inFlight.current = controller;
      api.suggest(q, controller.signal).then(
        (found) => {
          if (controller.signal.aborted) return;
          setSuggestions(found);
          setActive(-1);
          setOpen(found.length > 0);
        },
        () => undefined,
      );
    }, delay);
  };

  const go = (s: Suggestion, rank: number) => {
    void trackSelection({
      rank,
      epubarchive_identifier: '',
      scope: 'site',
      content_type: s.kind,
      selection_type: 'suggestion',
      url: s.url,
      query: value,
      session_id: profile?.session_id ?? '',
      user_identifier: profile?.user_uuid ?? null,
    });
    setOpen(false);
    navigate(toAppPath(s.url));
  };

  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    setOpen(false);
    const q = value.trim();
    navigate(searchPaths.searchPage(q || '*'));
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      if (!open && suggestions.length) setOpen(true);
      setActive((a) => Math.min(suggestions.length - 1, a + 1));
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((a) => Math.max(-1, a - 1));
    } else if (e.key === 'Enter') {
      const chosen = open && active >= 0 ? suggestions[active] : undefined;
      if (chosen) {
        e.preventDefault();
        go(chosen, active);
      }
    } else if (e.key === 'Escape') {
      setActive(-1);
      if (open) setOpen(false);
      else setValue('');
    }
  };

  const optionId = (i: number) => `${listId}-option-${i}`;
  let lastKind: Suggestion['kind'] | null = null;
  return (
    <form role="search" className="header-search" onSubmit={submit} aria-label="Search the library">
      <Icon name="search" size={16} />
      <input
        ref={inputRef}
        // not type="search": Chromium clears such a field on Escape, which must only close the list first
        type="text"
        className="header-search__input"
        placeholder="Search titles, authors, topics"
        aria-label="Search the library"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={listId}
        aria-activedescendant={open && active >= 0 ? optionId(active) : undefined}
        autoComplete="off"
        spellCheck={false}
        value={value}
        onChange={(e) => {
          setValue(e.currentTarget.value);
          ask(e.currentTarget.value);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => {
          // a moment later, so a click on a suggestion lands first
          blurTimer.current = setTimeout(() => setOpen(false), 150);
        }}
        onFocus={() => {
          // back before that moment (a dialog opened over the box and closed at once): the list stays
          if (blurTimer.current) clearTimeout(blurTimer.current);
          blurTimer.current = null;
          if (suggestions.length && value.trim().length >= 2) setOpen(true);
        }}
      />
      <ul id={listId} role="listbox" aria-label="Suggestions" className="header-search__list" hidden={!open}>
        {suggestions.map((s, i) => {
          const heading = s.kind !== lastKind ? KIND_LABEL[s.kind] : null;
          lastKind = s.kind;
          return (
            <li
              key={`${s.kind}-${s.url}`}
              id={optionId(i)}
              role="option"
              aria-selected={i === active}
              className={`header-search__option${i === active ? ' header-search__option--active' : ''}`}
              onMouseDown={(e) => {
                e.preventDefault();
                go(s, i);
              }}
              onMouseEnter={() => setActive(i)}
              aria-label={`${s.label} (${KIND_LABEL[s.kind].toLowerCase().replace(/s$/, '')})`}
            >
              {heading ? (
                <span className="header-search__kind" aria-hidden="true">
                  {heading}
                </span>
              ) : null}
              <span className="header-search__label">{s.label}</span>
            </li>
          );
        })}
      </ul>
    </form>
  );
}
