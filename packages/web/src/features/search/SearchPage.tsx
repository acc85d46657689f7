/**
 * /search/?q= and /noresults/?q= (docs/decisions.md "Finding"): results across the library — title, authors, the
 * matched text and up to three passages of the books' text with the words marked (a passage opens the reader there) —
 * filters by format, topic, publisher and language with their counts, sort, paging; every choice lives in the address
 * so Back works. Nothing found goes to /noresults/, which says what to try.
 */
import { useQuery } from '@tanstack/react-query';
import { SEARCH_SORTS, searchPaths, type CatalogSearchResponse, type FacetValue, type SearchResult } from '@lectern/core';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { Button } from '../../components/Button.tsx';
import { Cover } from '../../components/Cover.tsx';
import { PageLoading } from '../../components/PageLoading.tsx';
import { appPaths, cardCoverUrl, toAppPath } from '../../shared/links.ts';
import { Snippet } from '../../shared/Snippet.tsx';
import { rememberChoice, trackSelection } from '../../shared/searchChoice.ts';
import { useSession } from '../../shared/useSession.ts';
import { FACETS, searchAddressOf, searchQueryOf } from './searchQuery.ts';
import './SearchPage.css';

const FACET_LABEL: Record<(typeof FACETS)[number], string> = { format: 'Format', topic: 'Topic', publisher: 'Publisher', language: 'Language' };
const FORMAT_LABEL: Record<string, string> = { book: 'Books', document: 'Documents', video: 'Videos', audiobook: 'Audiobooks' };
const SORT_LABEL: Record<(typeof SEARCH_SORTS)[number], string> = { relevance: 'Best match', newest: 'Newest', title: 'Title' };
// in English, as every other word of the app (and as CountryField names countries): the browser's own locale would
// also make the server's rendering of this page differ from the browser's, a hydration mismatch
const languageName = (code: string) => {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
};

/** The `after` of the server's next page (null when the page is found by its number alone). */
const cursorOf = (url: string) => new URL(url, 'http://x').searchParams.get('after');

function NoResults({ q }: { q: string }) {
  return (
    <div className="search-empty">
      <h2>Nothing in the library matches “{q}”</h2>
      <ul>
        <li>Check the spelling, or try a word with the same meaning.</li>
        <li>Use fewer words: every word you type must be found.</li>
        <li>Search for an author, a topic or a publisher.</li>
      </ul>
      <p>
        Or <Link to={appPaths.library}>browse the whole library</Link>.
      </p>
    </div>
  );
}

function Result({ result, rank, q, onChoose }: { result: SearchResult; rank: number; q: string; onChoose: (url: string, type: 'title' | 'passage', rank: number) => void }) {
  const m = result.metadata;
  return (
    <li className="search-result">
      <Link to={toAppPath(m.url)} className="search-result__cover" tabIndex={-1} aria-hidden="true" onClick={() => onChoose(m.url, 'title', rank)}>
        {/* the 360h variant, as the title cards show (the book's own cover can weigh 800 KB) */}
        <Cover src={m.cover_image_url && cardCoverUrl(m.cover_image_url)} title={m.title} authors={m.authors} />
      </Link>
      <div className="search-result__body">
        <p className="search-result__format">{FORMAT_LABEL[m.content_format]?.replace(/s$/, '') ?? m.content_format}</p>
        <h3 className="search-result__title">
          <Link to={toAppPath(m.url)} onClick={() => onChoose(m.url, 'title', rank)}>
            {m.title}
          </Link>
        </h3>
        {m.authors.length ? <p className="search-result__authors">by {m.authors.join(', ')}</p> : null}
        {result.snippet ? (
          <p className="search-result__snippet">
            <Snippet html={result.snippet} />
          </p>
        ) : null}
        {result.passages.length ? (
          <ul className="search-result__passages" aria-label={`Passages of ${m.title} that match ${q}`}>
            {result.passages.map((p) => (
              <li key={p.web_url}>
                <Link
                  to={toAppPath(p.web_url)}
                  onClick={() => {
                    // The reader finds this very passage by its first words (reader.md §4), not the word's first use.
                    rememberChoice(p, q);
                    onChoose(p.web_url, 'passage', rank);
                  }}
                >
                  <span className="search-result__chapter">{p.chapter_title}</span>
                  <span className="search-result__passage">
                    <Snippet html={p.highlighted_content} />
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    </li>
  );
}

function Facet({ name, values, chosen, link }: { name: (typeof FACETS)[number]; values: FacetValue[]; chosen: string | null; link: (value: string | null) => string }) {
  if (!values.length && !chosen) return null;
  const label = (v: FacetValue) => (name === 'format' ? (FORMAT_LABEL[v.value] ?? v.label) : name === 'language' ? languageName(v.value) : v.label);
  return (
    <fieldset className="search-facet">
      <legend>{FACET_LABEL[name]}</legend>
      <ul>
        {chosen ? (
          <li>
            <Link to={link(null)} className="search-facet__clear">
              Any {FACET_LABEL[name].toLowerCase()}
            </Link>
          </li>
        ) : null}
        {values.map((v) => (
          <li key={v.value}>
            <Link to={link(v.value)} aria-current={chosen === v.value ? 'true' : undefined} className="search-facet__value">
              <span>{label(v)}</span>
              <span className="search-facet__count">{v.count}</span>
            </Link>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}

export function SearchPage() {
  const [params] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const { profile } = useSession();
  const { q, page, sort, filters } = searchAddressOf(params);
  const noResultsPage = location.pathname.startsWith('/noresults');
  const [field, setField] = useState(q === '*' ? '' : q);
  useEffect(() => setField(q === '*' ? '' : q), [q]);

  const results = useQuery<CatalogSearchResponse>({
    ...searchQueryOf(params),
    enabled: !noResultsPage,
  });

  // Nothing found for the words themselves (no filter narrowing it): the no-results page says what to try.
  useEffect(() => {
    if (!noResultsPage && results.data && results.data.count === 0 && !FACETS.some((f) => filters[f])) {
      navigate(searchPaths.noResultsPage(q), { replace: true });
    }
  }, [noResultsPage, results.data, q, navigate, filters]);

  const address = (change: Record<string, string | null>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(change)) {
      if (v === null) next.delete(k);
      else next.set(k, v);
    }
    if (!('page' in change)) {
      next.delete('page');
      next.delete('after');
    }
    return `/search/?${next}`;
  };
  const onChoose = (url: string, type: 'title' | 'passage', rank: number) =>
    void trackSelection({
      rank,
      epubarchive_identifier: '',
      scope: 'site',
      content_type: 'book',
      selection_type: type,
      url,
      query: q,
      session_id: profile?.session_id ?? '',
      user_identifier: profile?.user_uuid ?? null,
    });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    navigate(searchPaths.searchPage(field.trim() || '*'));
  };

  const data = results.data;
  const heading = q === '*' ? 'Everything in the library' : `Results for “${q}”`;
  return (
    <div className="page search-page">
      <title>{`${q === '*' ? 'Search' : q} · Lectern`}</title>
      <form role="search" className="search-page__form" onSubmit={onSubmit}>
        <label htmlFor="search-page-field" className="visually-hidden">
          Search the library
        </label>
        <input
          id="search-page-field"
          type="search"
          value={field}
          onChange={(e) => setField(e.currentTarget.value)}
          placeholder="Titles, authors, topics, words inside the books"
          className="search-page__field"
        />
        <Button type="submit">Search</Button>
      </form>
      {noResultsPage ? (
        <NoResults q={q} />
      ) : results.isPending ? (
        <PageLoading />
      ) : results.isError ? (
        <p role="alert" className="search-page__error">
          Something has gone wrong... please try again later.
        </p>
      ) : data ? (
        <div className="search-page__layout">
          <aside className="search-page__facets" aria-label="Filters">
            {FACETS.map((f) => (
              <Facet key={f} name={f} values={data.facets[f]} chosen={filters[f]} link={(v) => address({ [f]: v })} />
            ))}
          </aside>
          <section className="search-page__results" aria-labelledby="search-heading">
            <div className="search-page__bar">
              <h1 id="search-heading" className="search-page__heading">
                {heading} <span className="search-page__count">{data.count === 1 && data.count_exact ? '1 title' : `${data.count}${data.count_exact ? '' : '+'} titles`}</span>
              </h1>
              {q !== '*' ? (
                <label className="search-page__sort">
                  Sort by{' '}
                  <select value={sort} onChange={(e) => navigate(address({ sort: e.currentTarget.value === 'relevance' ? null : e.currentTarget.value }))}>
                    {SEARCH_SORTS.map((s) => (
                      <option key={s} value={s}>
                        {SORT_LABEL[s]}
                      </option>
                    ))}
                  </select>
                </label>
              ) : null}
            </div>
            {data.results.length ? (
              <ol className="search-page__list">
                {data.results.map((r, i) => (
                  <Result key={r.metadata.api_url} result={r} rank={(page - 1) * 20 + i} q={q} onChoose={onChoose} />
                ))}
              </ol>
            ) : (
              <p>No title matches with these filters. Remove one to see more.</p>
            )}
            <nav className="search-page__pages" aria-label="Pages of results">
              {data.previous ? <Link to={address({ page: String(page - 1), after: null })}>Previous page</Link> : <span />}
              {data.next ? <Link to={address({ page: String(page + 1), after: cursorOf(data.next) })}>Next page</Link> : null}
            </nav>
          </section>
        </div>
      ) : null}
    </div>
  );
}

export default SearchPage;
// for the first screen rendered on the server and hydrated (app/firstScreen.ts): from this chunk, not another file
export { searchQueryOf } from './searchQuery.ts';
