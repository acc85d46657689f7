/**
 * User-visible messages quoted by the specifications, word for word. Anything the user reads that the
 * specification fixes lives here so that the server, the web app and the tests share one spelling.
 */
export const MESSAGES = {
  // reader.md §6 / §8
  userNotLoggedIn: 'User is not logged in.',
  signInToRead: 'You must be signed in to read this book.',
  bookStillLoading: 'This book is still loading, please retry in a moment.',
  chapterNotDecrypted: 'This chapter could not be decrypted.',
  unableToDecrypt: 'Unable to decrypt content',
  imageLoadFailed: 'The image could not be loaded.',
  // library-playlists-account.md §6 / §8
  pleaseLogIn: 'Please log in to continue.',
  contentRequestFailed: 'Error, the machines failed. Please try again soon.',
  fieldRequired: 'This field is required.',
} as const;

/** Messages of our own (the specification is silent); kept here so tests and UI agree. */
export const APP_MESSAGES = {
  invalidCredentials: 'The email address or password is not correct.',
  tooManySignIns: 'Too many sign-in attempts. Please wait a minute and try again.',
  csrfFailed: 'CSRF check failed: reload the page and try again.',
  originRejected: 'Cross-origin request rejected.',
  notFound: 'Not found.',
  bookNotFound: 'We could not find that book.',
  chapterNotFound: 'We could not find that chapter.',
  adminOnly: 'You do not have permission to do that.',
  accountInactive: 'This account is not active.',
  /** The reader, offline, asked for a chapter it has not kept (it loads by itself once the connection is back). */
  chapterOffline: 'You are offline; this chapter will load when you are back',
} as const;
