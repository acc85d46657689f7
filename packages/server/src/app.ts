/**
 * buildApp(config): the whole server wired together — the services (build-services.ts), then plugins and routes.
 * Tests, the benchmark and main.ts build the app through here; the command line builds the services alone.
 */
import { LONG_CHAPTER_CHARS } from '@lectern/core';
import path from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyMultipart from '@fastify/multipart';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';
import { registerAuthContext } from './plugins/auth-context.ts';
import { registerCsrf } from './plugins/csrf.ts';
import { registerErrorHandling } from './plugins/errors.ts';
import { registerInputGuard } from './plugins/input-guard.ts';
import { registerSecurityHeaders } from './plugins/security-headers.ts';
import { registerAnswerCompression } from './plugins/compress-answers.ts';
import { CatalogRepository } from './repositories/catalog.ts';
import { HealthRepository } from './repositories/health.ts';
import { accountRoutes } from './routes/account.ts';
import { registrationRoutes } from './routes/registration.ts';
import { firstOperatorRoutes } from './routes/first-operator.ts';
import { searchRoutes } from './routes/search.ts';
import { subscriptionRoutes } from './routes/subscriptions.ts';
import { teamRoutes } from './routes/teams.ts';
import { loggerOptions } from './plugins/request-log.ts';
import { SUBSCRIPTION_CHECK_INTERVAL_MS } from './services/subscriptions.ts';
import { annotationRoutes } from './routes/annotations.ts';
import { adminRoutes } from './routes/admin.ts';
import { bookRoutes } from './routes/books.ts';
import { collectionRoutes } from './routes/collections.ts';
import { positionRoutes } from './routes/positions.ts';
import { readerRoutes } from './routes/reader.ts';
import { healthRoutes } from './routes/health.ts';
import { homeRoutes } from './routes/home.ts';
import { liveTrainingRoutes } from './routes/live-training.ts';
import { EARLY_BLOCK_SCRIPT_SOURCE, EARLY_INPUT_SCRIPT_SOURCE, webRoutes } from './routes/web.ts';
import { debugRoutes } from './routes/debug.ts';
import { DebugLog } from './services/debug-log.ts';
import { scriptedFrameRoutes } from './routes/scripted-frames.ts';
import { buildScriptedOrigin } from './scripted-origin.ts';
import { mediaRoutes } from './routes/media.ts';
import { registerAdminAudit, registerRecentErrors } from './plugins/admin-audit.ts';
import { adminConsoleRoutes, adminCoverRoute } from './routes/admin-console.ts';
import { adminSellingRoutes } from './routes/admin-selling.ts';
import { analyticsRoutes } from './routes/analytics.ts';
import { marketingRoutes } from './routes/marketing.ts';
import { NEWSLETTER_CHECK_INTERVAL_MS } from './services/marketing.ts';
import { SESSION_PURGE_INTERVAL_MS } from './services/auth.ts';
import { TaxonomyLookups } from './services/catalog.ts';
import { CATALOG_CHANGES_POLL_MS } from './services/catalog-changes.ts';
import { HealthService } from './services/health.ts';
import { CsrfTokens } from './services/tokens.ts';
import { LocalContentStore } from './storage/content-store.ts';
import { buildServices, type Services } from './build-services.ts';

export interface Lectern {
  app: FastifyInstance;
  /** the scripted origin's server (SCRIPTED_ORIGIN), listened on beside the app; null when not configured */
  scripted: FastifyInstance | null;
  /** POST /debug/'s messages (library-playlists-account.md §7); null outside debug or test mode, where it is absent */
  debug: DebugLog | null;
  db: Db;
  services: Services;
  config: Config;
  /** every route registered, as Fastify registered it (method, url): the attack suite's route table */
  routes: readonly { method: string; url: string }[];
}

export async function buildApp(config: Config): Promise<Lectern> {
  const { db, services, store, secret } = await buildServices(config);
  const app = Fastify({
    // one-time tokens in links (team invitations, password resets) are redacted from the request lines
    logger: config.logLevel === 'silent' ? false : loggerOptions(config.logLevel),
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: false },
  });
  app.addHook('onClose', async () => db.close());
  // Mail queued by requests already answered (a reset link) is still delivered: closing waits for it, bounded.
  app.addHook('onClose', async () => {
    const queued = services.mail.pending;
    // the addresses, so the operator knows whom to tell (a reset asked for again sends a new link)
    if (!(await services.mail.drain())) app.log.error(`closed with ${services.mail.pending} of ${queued} queued mail(s) unsent (${services.mail.unsentLine()}): the mail server did not answer in time`);
  });
  const routes: { method: string; url: string }[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of ([] as string[]).concat(route.method)) routes.push({ method, url: route.url });
  });
  // each scheduled job's last run, for the console's health page
  const jobRun = <T>(name: string, everyMs: number, run: () => Promise<T>) => services.admin.jobs.track(name, everyMs, run)();
  // jobs whose work is the library's, not this process's: run once per period across all servers on the database
  const jobOnce = (name: string, everyMs: number, run: () => Promise<unknown>) =>
    services.scheduled.runOnce(name, everyMs, services.admin.jobs.track(name, everyMs, run));
  // Expired sessions, ended sign-in counters and analytics events past their retention are deleted at start and
  // then hourly (expired sessions also at each sign-in, services/auth.ts).
  const purge = () =>
    jobOnce('retention purge (sessions, sign-in counters, analytics)', SESSION_PURGE_INTERVAL_MS, () =>
      Promise.all([
        services.auth.purgeExpiredSessions(),
        services.scheduled.purge(),
        services.serverChanges.purge(),
        services.importJobs.purge(),
        services.signInThrottle.purge(),
        services.analytics.purge(),
        // the dashboard's empty searches, kept as long as analytics events
        services.admin.dashboard.purgeSearchMisses(config.analyticsRetentionDays),
      ]),
    ).catch((err: Error) =>
      app.log.error({ err }, 'deleting expired sessions, sign-in counters and old analytics events failed'),
    );
  // Each timer's run catches and logs its own failure, so nothing waits on its promise: `void` on purpose.
  const purgeTimer = setInterval(() => void purge(), SESSION_PURGE_INTERVAL_MS).unref();
  app.addHook('onReady', async () => void (await purge()));
  app.addHook('onClose', async () => clearInterval(purgeTimer));
  // Trials and paid periods end on time without a request: every minute, and at start (what a stopped server
  // missed is still due: the job works from the stored dates).
  const runDue = () =>
    Promise.all([
      jobOnce('trial and subscription expiry', SUBSCRIPTION_CHECK_INTERVAL_MS, () => services.subscriptions.runDue()).catch((err: Error) => app.log.error({ err }, 'ending trials and paid periods failed')),
      jobOnce('team renewals and expiry', SUBSCRIPTION_CHECK_INTERVAL_MS, () => services.teams.runDue()).catch((err: Error) => app.log.error({ err }, "renewing and ending teams' subscriptions failed")),
    ]);
  const dueTimer = setInterval(() => void runDue(), SUBSCRIPTION_CHECK_INTERVAL_MS).unref();
  app.addHook('onReady', async () => void (await runDue()));
  // The newsletter of new titles: looked at hourly and at start, sent when NEWSLETTER_DAYS have passed since the last.
  const newsletter = () =>
    jobOnce('newsletter of new titles', NEWSLETTER_CHECK_INTERVAL_MS, () => services.marketing.runDue()).catch((err: Error) => app.log.error({ err }, 'sending the newsletter failed'));
  const newsletterTimer = setInterval(() => void newsletter(), NEWSLETTER_CHECK_INTERVAL_MS).unref();
  app.addHook('onReady', async () => void (await newsletter()));
  app.addHook('onClose', async () => clearInterval(newsletterTimer));
  // Titles imported before search existed are indexed in the background after start (idempotent).
  app.addHook('onReady', async () => {
    void services.search.backfill().catch((err: Error) => app.log.error({ err }, 'indexing the library for search failed'));
  });
  app.addHook('onClose', async () => clearInterval(dueTimer));
  // New titles and editions made by the command line or another server, and the sign-outs, accounts, playlists and
  // home edits changed on another server, are forgotten here within a second, not a minute.
  const pollChanges = () =>
    jobRun('new editions made elsewhere', CATALOG_CHANGES_POLL_MS, () => Promise.all([services.catalogChanges.poll(), services.serverChanges.poll()])).catch((err: Error) =>
      app.log.error({ err }, 'reading changes made elsewhere failed'),
    );
  const changesTimer = setInterval(() => void pollChanges(), CATALOG_CHANGES_POLL_MS).unref();
  app.addHook('onReady', async () => void (await pollChanges()));
  app.addHook('onClose', async () => clearInterval(changesTimer));
  // This server's import worker takes queued imports, its own uploads' and (sharing the upload area) the others'.
  app.addHook('onReady', async () => services.importJobs.start());
  // Stored uploads no job will run are swept hourly by every server (each may have a store of its own).
  const sweepUploads = () =>
    jobRun('uploads no import will run', SESSION_PURGE_INTERVAL_MS, () => services.importJobs.sweep()).catch((err: Error) => app.log.error({ err }, 'sweeping orphaned uploads failed'));
  const sweepTimer = setInterval(() => void sweepUploads(), SESSION_PURGE_INTERVAL_MS).unref();
  app.addHook('onReady', async () => void sweepUploads());
  app.addHook('onClose', async () => clearInterval(sweepTimer));
  app.addHook('preClose', async () => services.importJobs.stop());

  const csrf = new CsrfTokens(secret);
  await app.register(fastifyCookie);
  registerSecurityHeaders(app, config.scriptedOrigin ? [config.scriptedOrigin] : [], [EARLY_BLOCK_SCRIPT_SOURCE, EARLY_INPUT_SCRIPT_SOURCE]);
  // serve: false — only for reply.sendFile of book resources and covers (with HTTP ranges). cacheControl: false
  // keeps the routes' own cache-control (else every chapter stylesheet and image is revalidated: max-age=0).
  await app.register(fastifyStatic, { root: store instanceof LocalContentStore ? store.root : path.join(config.dataDir, 'content'), serve: false, cacheControl: false });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  registerErrorHandling(app);
  registerInputGuard(app);
  registerAuthContext(app, services.auth);
  registerCsrf(app, csrf);
  registerAdminAudit(app, services.admin.audit, services.admin.errors);
  registerRecentErrors(app, services.admin.errors);
  // After every other onSend hook (the audit reads the answer as JSON): compression is the last step before the wire.
  registerAnswerCompression(app);

  healthRoutes(app, new HealthService(new HealthRepository(db.kysely), db.engine));
  accountRoutes(app, { auth: services.auth, accounts: services.accounts, settings: services.accountSettings, csrf, throttle: services.signInThrottle });
  firstOperatorRoutes(app, { firstOperator: services.firstOperator, auth: services.auth, accounts: services.accounts, throttle: services.signInThrottle, csrf });
  registrationRoutes(app, { registration: services.registration, auth: services.auth, limits: services.requestLimits, csrf, passwordReset: services.passwordReset });
  subscriptionRoutes(app, { subscriptions: services.subscriptions, limits: services.requestLimits });
  teamRoutes(app, { teams: services.teams, auth: services.auth, limits: services.requestLimits, csrf });
  searchRoutes(app, { search: services.search, heavy: services.heavyRequests, listing: services.listingRequests, misses: (q) => services.admin.dashboard.recordSearchMiss(q) });
  adminConsoleRoutes(app, services.admin);
  adminSellingRoutes(app, { selling: services.admin.selling });
  homeRoutes(app, { home: services.home, listing: services.listingRequests });
  liveTrainingRoutes(app, { live: services.live });
  marketingRoutes(app, { marketing: services.marketing, listing: services.listingRequests });
  analyticsRoutes(app, { analytics: services.analytics });
  bookRoutes(app, { catalog: services.catalog, buyLinks: services.marketing, taxonomy: new TaxonomyLookups(new CatalogRepository(db.kysely)), store, listing: services.listingRequests });
  // Multipart only where uploads are taken: registered on the whole app, its two hooks ran on every request
  // (a 'close' listener and an async onResponse per request; bench/http.ts).
  await app.register(async (uploads) => {
    await uploads.register(fastifyMultipart);
    adminRoutes(uploads, { importer: services.importer, jobs: services.importJobs, flags: services.flags });
    adminCoverRoute(uploads, { titles: services.admin.titles });
  });
  collectionRoutes(app, { collections: services.collections, metadata: services.metadata });
  readerRoutes(app, { reader: services.reader });
  positionRoutes(app, { positions: services.positions });
  annotationRoutes(app, { annotations: services.annotations });
  scriptedFrameRoutes(app, services.scriptedFrames);
  mediaRoutes(app, { media: services.media, store, supportEmail: config.supportEmail });
  // Debug or test mode only (config.debugMode): in production the address stays unknown, a 404.
  const debug = config.debugMode ? new DebugLog((entry) => app.log.info({ debug: entry }, 'page debug message')) : null;
  if (debug) debugRoutes(app, debug);
  await webRoutes(app, config.webDist, { highlightPrivacy: config.highlightPrivacy }, {
    profile: async (request) => {
      const signedIn = await request.auth();
      return signedIn ? services.accounts.profile(signedIn.user, signedIn.session) : null;
    },
    readerStart: async (request, bookId, href) => {
      const [format, signedIn, heading, textLength] = await Promise.all([
        services.metadata.contentFormat(bookId),
        request.auth(),
        services.metadata.readerHeading(bookId, href),
        services.metadata.chapterTextLength(bookId, href),
      ]);
      if (!format || !signedIn) return null;
      // (a book's long chapter: the app's start waits for the page's first screen of it; a document's pages are not sliced)
      const long = format === 'book' && (textLength ?? 0) >= LONG_CHAPTER_CHARS;
      return { format, position: await services.positions.get(signedIn.user, bookId), key: services.reader.userKey(signedIn.user).key, heading, ...(long ? { long } : {}) };
    },
    covers: async (urls) => services.metadata.covers(urls),
  });

  const scripted = config.scriptedOrigin ? buildScriptedOrigin(services.scriptedFrames, store, new URL(config.publicUrl).origin, config.logLevel) : null;
  if (scripted) app.addHook('onClose', async () => scripted.close());
  return { app, scripted, debug, db, services, config, routes };
}
