/**
 * The operators' console at /admin/ (docs/decisions.md "The operators' console, web side"): its own chunk, loaded only
 * when an operator opens it. A navigation of the sections (a side column on a desktop, a scrolling strip on a phone)
 * and the section's page. Readers get a page saying why they cannot be here; visitors are sent to sign in.
 */
import { CONSOLE_MESSAGES as M } from '@lectern/core';
import { Navigate, NavLink, Route, Routes } from 'react-router';
import { ButtonLink } from '../../components/Button.tsx';
import { ErrorState } from '../../components/ErrorState.tsx';
import { PageLoading } from '../../components/PageLoading.tsx';
import { appPaths } from '../../shared/links.ts';
import { useShortcutsOff } from '../../shared/shortcuts/useShortcut.ts';
import { useSession, useSignInPath } from '../../shared/useSession.ts';
import { accessOf, type Access, consolePaths, sectionsFor } from './access.ts';
import { AuditPage } from './AuditPage.tsx';
import { DashboardPage } from './DashboardPage.tsx';
import { EngagingPage } from './EngagingPage.tsx';
import { HealthPage } from './HealthPage.tsx';
import { ImportPage } from './ImportPage.tsx';
import { InvoicesPage } from './InvoicesPage.tsx';
import { PeoplePage, PersonPage } from './PeoplePage.tsx';
import { PromotionCodePage } from './PromotionCodePage.tsx';
import { SellingPage } from './SellingPage.tsx';
import { TeamPage, TeamsPage } from './TeamsPage.tsx';
import { TitlePage, TitlesPage } from './TitlesPage.tsx';
import './AdminArea.css';

export default function AdminArea() {
  const { profile, isLoading, failed, retry } = useSession();
  // The console declares the page flag that turns the site's shortcuts off (reader.md §5; docs/decisions.md
  // "Keyboard shortcuts"): its tables, pickers and forms are worked by keyboard, and J/K, D or U mean nothing here.
  useShortcutsOff();
  const signIn = useSignInPath(!isLoading && !profile && !failed);
  if (isLoading) return <PageLoading />;
  if (failed)
    return (
      <div className="page">
        <ErrorState message={M.loadFailed} onRetry={retry} />
      </div>
    );
  if (!profile) return <Navigate to={signIn} replace />;
  const access = accessOf(profile);
  if (access === 'none') return <Refused />;
  return <Console access={access} />;
}

function Refused() {
  return (
    <div className="page admin-refused">
      <title>{`${M.refusedTitle} · Lectern`}</title>
      <p className="admin-refused__code" aria-hidden="true">
        403
      </p>
      <h1 className="page-heading">{M.refusedTitle}</h1>
      <p className="admin-refused__text">{M.refused}</p>
      <ButtonLink to={appPaths.library} size="lg">
        {M.goToLibrary}
      </ButtonLink>
    </div>
  );
}

function Console({ access }: { access: Access }) {
  const sections = sectionsFor(access);
  const admin = access === 'admin';
  return (
    <div className="admin">
      <title>{`${M.title} · Lectern`}</title>
      <nav className="admin__nav" aria-label={M.navLabel}>
        <p className="admin__brand">{M.title}</p>
        <ul>
          {sections.map((s) => (
            <li key={s.path}>
              <NavLink to={consolePaths.section(s.path)} end className="admin__link">
                {s.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <div className="admin__page">
        <Routes>
          <Route index element={admin ? <DashboardPage /> : <Navigate to={consolePaths.section('import')} replace />} />
          <Route path="import" element={<ImportPage />} />
          <Route path="titles" element={<TitlesPage />} />
          <Route path="titles/:bookId" element={<TitlePage />} />
          {admin ? (
            <>
              <Route path="people" element={<PeoplePage />} />
              <Route path="people/:userId" element={<PersonPage />} />
              <Route path="selling" element={<SellingPage />} />
              <Route path="selling/codes/:code" element={<PromotionCodePage />} />
              <Route path="invoices" element={<InvoicesPage />} />
              <Route path="teams" element={<TeamsPage />} />
              <Route path="teams/:teamId" element={<TeamPage />} />
              <Route path="engaging" element={<EngagingPage />} />
              <Route path="health" element={<HealthPage />} />
              <Route path="audit" element={<AuditPage />} />
            </>
          ) : null}
          <Route path="*" element={<p className="admin__note">{admin ? M.noResults : M.contentOnlyPage}</p>} />
        </Routes>
      </div>
    </div>
  );
}
