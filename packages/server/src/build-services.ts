/**
 * buildServices(config): the database, repositories and services wired together, with no HTTP. The command line
 * and the benchmarks that need no server use this alone, so it imports no route, no Fastify plugin and not Fastify
 * (an operator's command starts without loading the web server: docs/performance.md "The command line's start");
 * app.ts builds the HTTP app on top of it.
 */
import path from 'node:path';
import type { Config } from './config.ts';
import { type Db, openDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { AnnotationsRepository } from './repositories/annotations.ts';
import { CatalogRepository } from './repositories/catalog.ts';
import { CatalogChangesRepository } from './repositories/catalog-changes.ts';
import { CollectionsRepository } from './repositories/collections.ts';
import { PositionsRepository } from './repositories/positions.ts';
import { ProgressRepository } from './repositories/progress.ts';
import { SessionsRepository } from './repositories/sessions.ts';
import { SignInAttemptsRepository } from './repositories/sign-in-attempts.ts';
import { JobClaimsRepository } from './repositories/job-claims.ts';
import { ScheduledJobs } from './services/scheduled-jobs.ts';
import { UsersRepository } from './repositories/users.ts';
import { SearchRepository } from './repositories/search.ts';
import { SearchService } from './services/search.ts';
import { PasswordResetsRepository } from './repositories/password-resets.ts';
import { LogMailer, MailOutbox, SmtpMailer } from './services/mailer.ts';
import { PasswordResetService } from './services/password-reset.ts';
import { TeamsRepository } from './repositories/teams.ts';
import { TeamsService } from './services/teams.ts';
import { SubscriptionsRepository } from './repositories/subscriptions.ts';
import { InvoiceProvider } from './services/payments.ts';
import { SubscriptionsService } from './services/subscriptions.ts';
import { AccountEntryRepository } from './repositories/account-entry.ts';
import { RegistrationService } from './services/registration.ts';
import { RequestLimits } from './services/request-limits.ts';
import { HomeRepository } from './repositories/home.ts';
import { HomeService } from './services/home.ts';
import { LiveTrainingRepository } from './repositories/live-training.ts';
import { LiveTrainingService } from './services/live-training.ts';
import { ScriptedFrames } from './services/scripted-frames.ts';
import { ScriptsConsentsRepository } from './repositories/scripts-consents.ts';
import { MediaRepository } from './repositories/media.ts';
import { MediaService } from './services/media.ts';
import { AdminDashboardRepository } from './repositories/admin-dashboard.ts';
import { AdminTitlesRepository } from './repositories/admin-titles.ts';
import { AdminUsersRepository } from './repositories/admin-users.ts';
import { AuditRepository } from './repositories/audit.ts';
import { AdminSellingRepository } from './repositories/admin-selling.ts';
import { AdminSellingService } from './services/admin-selling.ts';
import { AuditLog } from './services/admin-audit.ts';
import { AdminDashboardService, JobRuns, lecternVersion, RecentErrors } from './services/admin-dashboard.ts';
import { AdminTitlesService } from './services/admin-titles.ts';
import { AdminUsersService } from './services/admin-users.ts';
import { AnalyticsRepository } from './repositories/analytics.ts';
import { AnalyticsService } from './services/analytics.ts';
import { MarketingRepository } from './repositories/marketing.ts';
import { MarketingService } from './services/marketing.ts';
import { loadOrCreateSecret } from './secrets.ts';
import { AccountsService } from './services/accounts.ts';
import { AccountSettingsService } from './services/account-settings.ts';
import { AccountSettingsRepository } from './repositories/account-settings.ts';
import { AnnotationTokens } from './services/annotation-tokens.ts';
import { AnnotationsService } from './services/annotations.ts';
import { AuthService } from './services/auth.ts';
import { CatalogCache, CatalogService } from './services/catalog.ts';
import { CatalogChanges } from './services/catalog-changes.ts';
import { ServerChanges } from './services/server-changes.ts';
import { ServerChangesRepository } from './repositories/server-changes.ts';
import { ChapterFlagsService } from './services/chapter-flags.ts';
import { CollectionsService } from './services/collections.ts';
import { ContentResolver } from './services/content-resolver.ts';
import { ImportService } from './services/import.ts';
import { ImportJobs } from './services/import-jobs.ts';
import { LegacyUploadArea } from './storage/legacy-uploads.ts';
import { ImportJobsRepository } from './repositories/import-jobs.ts';
import { MetadataService } from './services/metadata.ts';
import { PositionsService } from './services/positions.ts';
import { ReaderService } from './services/reader.ts';
import { SignInThrottle } from './services/sign-in-throttle.ts';
import { FirstOperatorService } from './services/first-operator.ts';
import { type ContentStore, LocalContentStore, totalBytes } from './storage/content-store.ts';
import { openContentStore } from './storage/open-content-store.ts';
import { ContentMoveService } from './services/content-move.ts';
import { ContentFilesRepository } from './repositories/content-files.ts';
import { Gate } from './util/gate.ts';

/**
 * Requests that read much run a few at a time by default (docs/decisions.md "Heavy requests take turns"): searches
 * two on SQLite, whose statements run on the event loop, and a few on PostgreSQL, well under the pool's 10
 * connections; listings, the home and suggestions four on SQLite, and eight on PostgreSQL, where a listing mostly
 * waits for its round trips (at four the listings' throughput under load fell to 0.7 of no gate: docs/performance.md
 * "Under 200 connections"). Everything else goes past them.
 */
export const HEAVY_CONCURRENCY = { sqlite: 2, postgres: 4 } as const;
export const LISTING_CONCURRENCY = { sqlite: 4, postgres: 8 } as const;

export interface Services {
  accounts: AccountsService;
  /** the first admin from the browser, while none exists (docs/decisions.md "The first operator, from the browser") */
  firstOperator: FirstOperatorService;
  /** a reader's settings kept on the account (keyboard shortcuts) */
  accountSettings: AccountSettingsService;
  auth: AuthService;
  catalog: CatalogService;
  importer: ImportService;
  /** `content:move`: the library's content files copied to another store (services/content-move.ts) */
  contentMove: ContentMoveService;
  /** imports queued in the database, taken by any server's worker (docs/decisions.md "Imports queued in the database") */
  importJobs: ImportJobs;
  flags: ChapterFlagsService;
  collections: CollectionsService;
  metadata: MetadataService;
  reader: ReaderService;
  signInThrottle: SignInThrottle;
  positions: PositionsService;
  registration: RegistrationService;
  requestLimits: RequestLimits;
  annotations: AnnotationsService;
  subscriptions: SubscriptionsService;
  passwordReset: PasswordResetService;
  /** mail sent after the answer of the request that asked for it; closing waits for it (app.ts) */
  mail: MailOutbox;
  teams: TeamsService;
  search: SearchService;
  home: HomeService;
  live: LiveTrainingService;
  catalogChanges: CatalogChanges;
  /** sign-outs, account changes, playlists and the home's edits, heard from the other server processes */
  serverChanges: ServerChanges;
  analytics: AnalyticsService;
  scriptedFrames: ScriptedFrames;
  media: MediaService;
  /** the marketing modules (docs/decisions.md "The marketing modules"): newsletter, home blocks, buy links */
  marketing: MarketingService;
  /**
   * the operators' console (docs/decisions.md "Operators' console: the server side"): audit log, titles, people,
   * dashboard and health
   */
  admin: {
    audit: AuditLog;
    titles: AdminTitlesService;
    users: AdminUsersService;
    dashboard: AdminDashboardService;
    /** invoices, teams and promotion codes (through services.teams and services.subscriptions) */
    selling: AdminSellingService;
    jobs: JobRuns;
    errors: RecentErrors;
  };
  /** scheduled jobs claimed once per period across all servers on the database (services/scheduled-jobs.ts) */
  scheduled: ScheduledJobs;
  /** the turns of heavy requests, the searches (util/gate.ts) */
  heavyRequests: Gate;
  /** the turns of listings, the home and suggestions */
  listingRequests: Gate;
}

/** Opens the database, runs migrations and wires the services; no HTTP (the command line uses this alone). */
export async function buildServices(config: Config): Promise<{ db: Db; services: Services; store: ContentStore; secret: string }> {
  const secret = loadOrCreateSecret(config.dataDir, config.secret);
  const db = openDatabase({
    ...config,
    // SQLite's searches read on threads of their own, as many as run at once (docs/decisions.md "Searches read SQLite
    // on threads of their own"); an unbounded gate (HEAVY_REQUESTS=1000) still gets a few: more do not help on few cores.
    sqliteReaders: config.searchThreads ?? Math.min(config.heavyRequests.concurrency ?? HEAVY_CONCURRENCY.sqlite, 4),
    onIdleError: (err) => console.error(`[lectern] database connection dropped: ${err.message}`),
  });
  try {
    await migrateToLatest(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  const store = await openContentStore(config);
  const users = new UsersRepository(db.kysely);
  const searchRepo = new SearchRepository(db.kysely, db.engine, db.reads);
  const catalogRepo = new CatalogRepository(db.kysely, searchRepo);
  const catalogCache = new CatalogCache();
  const catalogChanges = new CatalogChanges(new CatalogChangesRepository(db.kysely), (bookId, titleId) => {
    catalogCache.forgetTitle(bookId, titleId);
    catalogRepo.forgetTitles();
    // a new edition moved the playlists' versions of those holding the title (repositories/catalog.ts replaceTitle)
    services.collections.forgetAllHere();
  });
  // what the other server processes changed and this one keeps (docs/decisions.md "Several servers: current on all
  // within a second"); the handlers are wired once the services exist, below
  const serverChanges = new ServerChanges(new ServerChangesRepository(db.kysely));
  const collectionsRepo = new CollectionsRepository(db.kysely);
  const resolver = new ContentResolver(catalogRepo, catalogCache);
  const progressRepo = new ProgressRepository(db.kysely, db.syncGet);
  const positionsRepo = new PositionsRepository(db.kysely);
  const accountEntry = new AccountEntryRepository(db.kysely);
  const mediaRepo = new MediaRepository(db.kysely);
  const catalog = new CatalogService(catalogRepo, store, catalogCache, { positions: positionsRepo, progress: progressRepo, history: accountEntry }, mediaRepo);
  const sessions = new SessionsRepository(db.kysely);
  const accounts = new AccountsService(users, sessions);
  const auth = new AuthService(users, sessions, undefined, serverChanges);
  const mailer = config.smtpUrl ? new SmtpMailer(config.smtpUrl, config.mailFrom) : new LogMailer((line) => console.log(line));
  // mail sent after a request's answer (services/mailer.ts): a failure is logged, never lost silently
  const mail = new MailOutbox(mailer, (email, err) => console.error(`[lectern] a mail to ${email.to} ("${email.subject}") was not sent: ${(err as Error)?.message ?? String(err)}`));
  const subscriptionsRepo = new SubscriptionsRepository(db.kysely);
  const requestLimits = new RequestLimits(new SignInAttemptsRepository(db.kysely));
  // The operators' console (docs/decisions.md "Operators' console: the server side"): the same services for the
  // console's routes and the command line (what they use of the other services is looked up when called: `services` is
  // made just below).
  const adminUsersRepo = new AdminUsersRepository(db.kysely);
  const teamsRepo = new TeamsRepository(db.kysely);
  const audit = new AuditLog(new AuditRepository(db.kysely), (ids) => adminUsersRepo.uuidsOf(ids));
  const jobs = new JobRuns();
  const scheduled = new ScheduledJobs(new JobClaimsRepository(db.kysely));
  const errors = new RecentErrors();
  const admin: Services['admin'] = {
    audit,
    jobs,
    errors,
    titles: new AdminTitlesService(new AdminTitlesRepository(db.kysely, searchRepo), async (bookId, titleId) => {
      catalogCache.forgetTitle(bookId, titleId);
      catalogRepo.forgetTitles();
      // its topics may have changed: the dashboard's past minutes by topic are read again
      admin.dashboard.forgetReading();
      await catalogChanges.record(bookId, titleId).catch(() => {});
    }, undefined, { store, scriptedOrigin: config.scriptedOrigin !== null }),
    users: new AdminUsersService(adminUsersRepo, accounts, {
      sendReset: (email) => services.passwordReset.requestAndWait(email),
      forgetUser: (userId) => auth.forgetUser(userId),
      trialDays: config.trialDays,
    }),
    dashboard: new AdminDashboardService(new AdminDashboardRepository(db.kysely, db.engine), audit, {
      version: lecternVersion(),
      engine: db.engine,
      contentRoot: path.join(config.dataDir, 'content'),
      ...(store instanceof LocalContentStore ? {} : { contentBytes: () => totalBytes(store) }),
      importQueue: () => services.importJobs.load(),
      errors,
      jobs,
      lastRunsAnywhere: () => scheduled.lastRuns(),
    }),
    // the rules are the teams' and subscriptions' own: looked up when called (`services` is made below)
    selling: new AdminSellingService(
      new AdminSellingRepository(db.kysely),
      teamsRepo,
      { operatorSetSeats: (...a) => services.teams.operatorSetSeats(...a), operatorRemoveMember: (...a) => services.teams.operatorRemoveMember(...a), changeOwner: (...a) => services.teams.changeOwner(...a) },
      { editPromotionCode: (...a) => services.subscriptions.editPromotionCode(...a) },
    ),
  };
  const services: Services = {
    admin,
    accounts,
    firstOperator: new FirstOperatorService(users, accounts),
    accountSettings: new AccountSettingsService(new AccountSettingsRepository(db.kysely)),
    auth,
    catalog,
    importer: new ImportService(catalogRepo, store, config.imports, undefined, catalogCache, catalogChanges),
    contentMove: new ContentMoveService(new ContentFilesRepository(db.kysely), store, path.join(config.dataDir, 'tmp')),
    // uploads wait in the content store's upload area: servers sharing the store share the work (services/import-jobs.ts)
    importJobs: new ImportJobs(
      new ImportJobsRepository(db.kysely, db.engine),
      { importUpload: (...a) => services.importer.importUpload(...a), replaceUpload: (...a) => services.importer.replaceUpload(...a) },
      store,
      scheduled.serverId,
      undefined,
      (err) => console.error(`[lectern] import queue: ${(err as Error).message}`),
      // jobs queued before uploads moved into the store wait in this server's DATA_DIR/import-jobs
      new LegacyUploadArea(path.join(config.dataDir, 'import-jobs')),
    ),
    flags: new ChapterFlagsService(catalogRepo, catalogCache, catalogChanges),
    collections: new CollectionsService(collectionsRepo, catalogRepo, resolver, undefined, serverChanges),
    metadata: new MetadataService(catalogRepo, progressRepo, resolver, catalogCache),
    reader: new ReaderService(secret, catalogRepo, catalog, progressRepo, resolver),
    signInThrottle: new SignInThrottle(new SignInAttemptsRepository(db.kysely), config.loginRateLimit),
    positions: new PositionsService(catalog, catalogRepo, positionsRepo),
    registration: new RegistrationService(accounts, accountEntry, config.trialDays),
    requestLimits,
    analytics: new AnalyticsService(new AnalyticsRepository(db.kysely), requestLimits, secret, config.analyticsRetentionDays),
    annotations: new AnnotationsService(new AnnotationTokens(secret), new AnnotationsRepository(db.kysely), catalog, catalogRepo, sessions, undefined, {
      forcePrivate: config.highlightPrivacy === 'private-only',
    }),
    scriptedFrames: new ScriptedFrames(secret, config.scriptedOrigin, catalog, sessions, new ScriptsConsentsRepository(db.kysely)),
    media: new MediaService(secret, catalog, mediaRepo, catalogCache),
    search: new SearchService(searchRepo, catalogRepo, catalog),
    home: new HomeService(new HomeRepository(db.kysely, undefined, db.reads), catalogRepo, catalog, undefined, serverChanges),
    live: new LiveTrainingService(new LiveTrainingRepository(db.kysely)),
    marketing: new MarketingService(new MarketingRepository(db.kysely), users, mailer, secret, {
      publicUrl: config.publicUrl,
      everyDays: config.newsletterDays,
      buyLinkTemplate: config.buyLinkTemplate,
    }, catalog),
    catalogChanges,
    serverChanges,
    scheduled,
    heavyRequests: new Gate(config.heavyRequests.concurrency ?? HEAVY_CONCURRENCY[db.engine], config.heavyRequests.maxWaiting, config.heavyRequests.maxWaitMs),
    listingRequests: new Gate(config.heavyRequests.listingConcurrency ?? LISTING_CONCURRENCY[db.engine], config.heavyRequests.maxWaiting, config.heavyRequests.maxWaitMs),
    mail,
    passwordReset: new PasswordResetService(
      users,
      new PasswordResetsRepository(db.kysely),
      sessions,
      mail,
      config.publicUrl,
    ),
    subscriptions: new SubscriptionsService(subscriptionsRepo, new InvoiceProvider(), undefined, (userId) => auth.forgetUser(userId)),
    teams: new TeamsService(teamsRepo, subscriptionsRepo, new InvoiceProvider(), accounts, mailer, config.publicUrl, undefined, (userIds) => {
      for (const userId of userIds) auth.forgetUser(userId);
    }),
  };
  serverChanges.on('session', (sessionId) => auth.forgetSessionHere(sessionId));
  serverChanges.on('user', (userId) => auth.forgetUserHere(Number(userId)));
  serverChanges.on('playlists', (userId) => services.collections.forgetUserHere(Number(userId)));
  serverChanges.on('home', () => services.home.forgetEditsHere());
  return { db, services, store, secret };
}
