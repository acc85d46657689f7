/**
 * What the operators' console's pages say (packages/web/src/features/admin; issue 23). Beside messages.ts, not in
 * it: messages.ts is a chunk the readers' entry preloads, and only the console, its own lazily loaded chunk, reads
 * these (docs/decisions.md "The operators' console, web side").
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
  retired: 'Retired: hidden from the catalog. Readers keep their notes, positions and playlists.',
  noResults: 'Nothing matches.',
  // dashboard
  rangeLabel: 'Range',
  noData: 'No data in this range.',
} as const;
