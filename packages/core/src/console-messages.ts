/**
 * What the operators' console's pages say (packages/web/src/features/admin; issue 23). Beside messages.ts, not in
 * it: messages.ts is a chunk the readers' entry preloads, and only the console, its own lazily loaded chunk, reads
 * these (docs/decisions.md "The operators' console, web side"). The console API's refusals are here too: the server
 * and core/admin.ts read them, no reader's page does. packages/server/test/rules.test.ts allows these two homes.
 */
export const CONSOLE_MESSAGES = {
  title: "Operators' console",
  navLabel: 'Console',
  refusedTitle: 'Operators only',
  refused: "This is the operators' console. Your account can read the library but not run it: ask an operator for the admin role.",
  signInTitle: "Sign in to the operators' console",
  signIn: 'Sign in with an operator account to run the library from here.',
  contentOnlyPage: 'This part of the console is for operators; as a content creator you can import and edit titles.',
  loadFailed: 'This could not be loaded. Check the connection and try again.',
  // import
  dropHere: 'Drop files or a folder here',
  dropKinds: (kinds: string) => `${kinds}. A folder of numbered media files becomes one title.`,
  chooseFiles: 'Choose files',
  chooseFolder: 'Choose a folder',
  unknownKind: (name: string) => `${name} is not a kind of file the library imports.`,
  importFailed: 'The upload did not reach the server. Check the connection and try again.',
  phase: {
    waiting: 'Waiting',
    uploading: 'Uploading',
    processing: 'Parsing and indexing',
    imported: 'Imported',
    refused: 'Refused',
  },
  importedAs: (title: string, chapters: number) => `Imported as “${title}”, ${chapters} ${chapters === 1 ? 'chapter' : 'chapters'}.`,
  newEditionHeading: 'New edition of a title',
  newEditionHint: 'The file replaces the title’s content; its book id, readers’ notes, positions and playlists stay.',
  // selling and engaging
  saved: 'Saved.',
  codeCreated: (code: string) => `Promotion code ${code} created.`,
  invoicePaid: (id: string) => `Invoice ${id} marked paid.`,
  announcementAdded: 'Announcement published.',
  previewHeading: 'What readers see',
  confirmRemove: (what: string) => `Remove ${what}? This cannot be undone.`,
  // titles and people
  versionConflict: 'Someone else saved this title while you were editing it.',
  editsKept: 'Your changes are still in the form, over theirs: fields you did not touch now show their version. Save to keep yours, or reload theirs.',
  clashesLabel: 'Changed by both of you',
  clash: (field: string, mine: string, theirs: string) => `${field}: yours ${mine}, theirs ${theirs}`,
  takeTheirs: 'Reload theirs (drop my changes)',
  yes: 'yes',
  no: 'no',
  emptyValue: 'empty',
  retired: 'Retired: hidden from the catalog. Readers keep their notes, positions and playlists.',
  noResults: 'Nothing matches.',
  // a title's import warnings (issue 24)
  importWarningsHeading: 'Import warnings',
  importWarningsNone: 'The importer found nothing to forgive in this file.',
  importWarningsUnknown: 'Imported before warnings were kept: import the file again to see them.',
  recoveredChaptersHint: 'These chapters are not well-formed XHTML: readers see them recovered, with a notice that the book has an error.',
  // dashboard
  rangeLabel: 'Range',
  noData: 'No data in this range.',
} as const;

/** The console API's refusals (core/admin.ts; server: routes/admin-*.ts, services/admin-*.ts). */
export const ADMIN_CONSOLE_MESSAGES = {
  dateShape: 'Give a day (2026-05-01) or an ISO date and time.',
  limitShape: `limit must be a whole number from 1 to 200.`,
  cursorShape: 'This cursor is not one the server gave: start again from the first page.',
  unknownTargetKind: 'Unknown target kind.',
  unknownTitleState: 'state must be active, retired or all.',
  unknownRole: 'A role is admin, content-creator or preview-creator.',
  unknownStatus: 'A status is trial, subscriber, expired or cancelled.',
  titleEmpty: 'A title cannot be empty.',
  authorEmpty: "An author's name cannot be empty.",
  topicEmpty: 'A topic cannot be empty.',
  languageShape: 'Give a language tag such as en or pt-BR.',
  emailShape: 'Give an email address.',
  nothingToChange: 'Send roles or status to change.',
  versionMissing: 'Send the version you edited (the version field or an If-Match header), so that nobody else\'s change is lost.',
  versionConflict: (by: string) => `Someone else (${by}) saved this title after you opened it. The console keeps your changes over theirs; the command line reads the title again.`,
  titleNotFound: 'No title has that book id.',
  userNotFound: 'No account has that id.',
  rangeBackwards: 'from must be before to.',
  rangeTooLong: (days: number) => `Choose at most ${days} days.`,
  contentOnly: 'Only operators and content creators can do this.',
  ownAdminRole: 'You cannot take away your own admin role: ask another operator.',
  lastAdmin: 'This is the last admin: give another account the admin role first.',
  alreadyRetired: 'This title is already retired.',
  notRetired: 'This title is not retired.',
  // selling
  unknownInvoiceState: 'state must be unpaid, paid or all.',
  memberRequired: 'Choose a member of the team.',
  notAMember: 'That account is not a member of this team.',
  alreadyOwner: 'That member owns the team already.',
  teamNotFound: 'No team has that id.',
  usageLimitShape: 'A redemption limit is a whole number, 1 or more (or none).',
  limitBelowUsed: (used: number) => `This code has been redeemed ${used} times: the limit cannot be lower.`,
  nothingToChangeCode: 'Send usage_limit or expires_at to change.',
  promotionCodeNotFound: 'No promotion code is spelled that way.',
} as const;
