import type { AnnotationAction } from './annotations.ts';
import { NOTE_MAX_LENGTH, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './constants.ts';

/**
 * Every sentence a person reads, in one home: the messages quoted by the specifications (word for word) and our
 * own, grouped by area, so the server, the web app and the tests share one spelling.
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
  /** The no-JavaScript sign-in form came back without an email address or password. */
  signInFieldsMissing: 'Enter your email address and password.',
  /** POST /login/ with a `next` that holds a control character (a 400 naming the field). */
  nextNotAPath: 'next must be a path on this site, without control characters.',
  /** A heavy request (a search) found the queue of those waiting for their turn full: a 503 with Retry-After. */
  busy: 'The server is busy. Please try again in a moment.',
  /** §2, §6: the scroll-to-top icon's name (signed-in readers, past 200 px) */
  scrollToTop: 'Back to top',
} as const;

// ---- playlists and queue (library-playlists-account.md §4, §5, §8) ----

export const PLAYLIST_MESSAGES = {
  nameEmpty: "Oops. You didn't name your playlist.",
  // Both wordings appear in the spec: a new playlist's name gets the first, a playlist's edit the second
  // (docs/decisions.md "Playlists and queue").
  createNameTooLong: 'Playlists are limited to 65 characters',
  nameTooLong: 'Playlist names are limited to 65 characters',
  nameTaken: "Oops! You've already used this name.",
  descriptionTooLong: 'Playlist descriptions are limited to 160 characters',
  defaultNotEditable: 'The default playlist cannot be edited.',
  notFound: 'We could not find the playlist that you requested.',
  /** The name of the error flashed for an unknown playlist id (§4), kept as the error state's responseText. */
  collectionNotFound: 'collection not found',
  fetchFailed: "Something has gone wrong and we can't display your playlists.",
  tryAgain: 'Please try again soon.',
  newPlaylistName: 'New playlist',
  copyPrefix: 'Copy of ',
  saving: 'Working... saving your changes',
  saved: 'Changes saved',
  addedToQueue: 'Added to your queue',
  removedFromQueue: 'Removed from your queue',
  addingToQueue: 'Adding to your queue...',
  removingFromQueue: 'Removing from your queue...',
  emptyLibrary: 'Start exploring! You do not yet have any playlists.',
  /** '...' stands for the icon of the control that adds (drawn there by the web app). */
  emptyPlaylist: 'Start exploring! You can add any title ... to this playlist just by tapping the playlist icon.',
  /** The same sentence for the queue, naming the control that adds to it (docs/decisions.md). */
  emptyQueue: 'Start exploring! You can add any title ... to this playlist just by tapping the queue icon.',
  /** The reorder call's list is not the playlist's items, each once (PUT .../order/, ours). */
  orderMismatch: "The order must list each of the playlist's items exactly once.",
  deleteTitle: 'Delete playlist',
  deleteConfirm: 'Are you sure you want to delete this playlist? This action cannot be undone.',
  createModalTitle: 'Create new playlist',
  nameLabel: 'Name your new playlist',
  descriptionLabel: '(optional)',
  createAnother: 'Create another playlist',
  addToAnother: 'Add to another playlist',
  /** The card menu's entries as §2 words them; the menu shows a label's first letter capitalised (Menu.css). */
  addToAnotherEntry: 'add to another playlist',
  addToNewEntry: 'add to a new playlist',
  findPlaylist: 'Find a playlist',
  noResults: 'No results',
  choosePlaylist: 'Choose a playlist',
  addTooltip: 'Add to Playlist',
  addedTooltip: 'Added to Playlist',
  unavailableTooltip: 'Unavailable',
  moreTopics: 'More topics',
  fewerTopics: 'Fewer topics',
  addToQueueLabel: 'Add to Queue',
  removeFromQueueLabel: 'Remove from Queue',
} as const;

/** The error catalogue of spec §8: each action's failure, followed by 'Please try again soon.' */
export const PLAYLIST_ACTION_ERRORS = {
  create: 'There was a problem creating your playlist.',
  update: 'There was a problem updating your playlist.',
  addContent: 'There was a problem adding content to your playlist.',
  removeContent: 'There was a problem removing content from your playlist.',
  delete: 'There was a problem deleting your playlist.',
  addToQueue: 'There was a problem adding content to your queue.',
  removeFromQueue: 'There was a problem removing content from your queue.',
} as const;
export type PlaylistAction = keyof typeof PLAYLIST_ACTION_ERRORS;

export const withTryAgain = (message: string) => `${message} ${PLAYLIST_MESSAGES.tryAgain}`;
/** 'New playlist created with your {content format}. ' — the modal's success line before the link. */
export const createdWithContent = (contentFormat: string) => `New playlist created with your ${contentFormat}. `;
/** '1 item' / '3 items': every count a person reads says it in the right number. */
export const itemCount = (n: number) => `${n} ${n === 1 ? 'item' : 'items'}`;
/** The spec's '{n} item(s) in {name}', with the number spelled out: '1 item in Go', '3 items in Queue'. */
export const itemCountLine = (n: number, name: string) => `${itemCount(n)} in ${name}`;

// ---- passwords (core/passwords.ts) ----

export const PASSWORD_MESSAGES = {
  tooShort: `Passwords must have at least ${PASSWORD_MIN_LENGTH} characters.`,
  tooLong: `Passwords must have at most ${PASSWORD_MAX_LENGTH} characters.`,
  isEmail: 'The password must not be the email address.',
  common: 'This password is too common: choose another.',
  /** The hint under every new-password field (registration, reset, team join, first operator). */
  hint: `At least ${PASSWORD_MIN_LENGTH} characters, not a common password and not your email.`,
} as const;

// ---- reader usage events (reader.md §5) ----

export const USAGE_MESSAGES = {
  positionUnchanged: "Position hasn't changed since last usage calculation",
} as const;

// ---- reading policy (server policies/reading.ts) ----

export const READING_MESSAGES = {
  subscriptionEnded: 'Your subscription has ended. Subscribe or reactivate your account to read this book.',
  /**
   * to someone removed from a team (or who left it) with no subscription of their own since (docs/decisions.md "The
   * paying reader's path")
   */
  noLongerOnTeam: (team: string) =>
    `You are no longer a member of the team ${team}, so its subscription no longer covers your reading. Subscribe yourself on your account page to read this book.`,
  /** a book's footnote shown over the page (EPUB noteref) */
  goToPage: 'Go to page',
  startOfText: 'Start of the text',
  noSuchPage: (page: string, first: string, last: string) => `There is no page ${page} in this book: its pages run from ${first} to ${last}.`,
  noteLabel: 'Note',
  closeNote: 'Close note',
  /**
   * a link out of the book asks first (docs/decisions.md "Reading fidelity: footnotes and links out of the book"), then
   * is left to the browser (reader.md §2)
   */
  leaveTitle: 'Leave the book?',
  leaveWeb: (host: string) => `This link opens ${host} in a new tab. The book stays open here.`,
  leaveMail: (address: string) => `This link opens your email app to write to ${address}.`,
  openLink: 'Open link',
  stay: 'Stay in the book',
  /**
   * a chapter whose XHTML is not well-formed, shown recovered (docs/decisions.md "A chapter that is not well-formed")
   */
  bookHasError: 'This book has an error in this chapter; it is shown as well as it can be.',
  hideNotice: 'Hide this notice',
} as const;

// ---- operators: uploads and accounts (admin routes, accounts service, command line) ----

export const ADMIN_MESSAGES = {
  notMultipart: 'Send the files as multipart/form-data.',
  uploadTooLarge: (megabytes: number) => `The files together are larger than ${megabytes} MB, the limit for one upload.`,
  fileTooLarge: (name: string, megabytes: number) => `${name} is larger than ${megabytes} MB, the limit for one file.`,
  tooManyFiles: (max: number) => `Send at most ${max} files at once.`,
  tooManyFields: 'The form has too many fields.',
  noFiles: 'Attach at least one EPUB or PDF file.',
  emailTaken: 'A user with that email already exists.',
  noUserWithEmail: (email: string) => `No user has the email ${email}.`,
} as const;

/**
 * An upload or an import that met the database or the content store down (a 503: the file is not at fault;
 * docs/decisions.md "An import the database or the store failed is not the file's fault"). `what` is "database" or
 * "content store"; `said` what it answered.
 */
export const UNAVAILABLE_MESSAGES = {
  notKept: (what: string, said: string) => `The library's ${what} was not available (${said}), so the upload was not kept and nothing was imported. Send the files again in a moment.`,
  notFinished: (reason: string) => `The import could not finish: ${reason}. The file is not at fault: send it again in a moment.`,
  stillWaiting: (what: string, said: string) =>
    `The library's ${what} was not available while the import ran (${said}). The upload is kept and its import is tried again once it is back: look for the title in a few minutes before sending the file again.`,
  /** any other request that met it (plugins/errors.ts) */
  request: (what: string) => `The library's ${what} is not available just now. Please try again in a moment.`,
} as const;

/** What an unreadable multipart upload body is told (these were 500s). */
export const UPLOAD_BODY_MESSAGES = {
  noBoundary: 'The upload\'s Content-Type names no boundary: send multipart/form-data; boundary=… as a browser does.',
  boundaryTooLong: 'The upload\'s multipart boundary is longer than 70 characters.',
  malformed: 'The upload is not a complete multipart/form-data body: it ends before its closing boundary, or a part is malformed.',
} as const;

// ---- content addresses given to the playlist, queue, metadata and progress calls (a 400 naming the field) ----

export const CONTENT_MESSAGES = {
  notAnAddress: (uri: string) => `"${uri}" is not a content address (expected /api/v1/book/{book_id}/).`,
  notInLibrary: (apiUrl: string) => `${apiUrl} is not in this library.`,
  notAChapterOf: (apiUrl: string, title: string) => `${apiUrl} is not a chapter of "${title}".`,
} as const;

// ---- joining: registration, the email and password checks, onboarding (library-playlists-account.md §5) ----

export const ACCOUNT_ENTRY_MESSAGES = {
  /** §5, word for word */
  required: 'This field is required.',
  looksGood: 'Looks good!',
  justASecond: 'Just a second...',
  emailShape: 'Enter a valid email address.',
  emailTaken: 'An account with this email already exists. Sign in instead.',
  emailFree: 'This email address is free to use.',
  planChoice: 'Choose the basic or the pro plan.',
  tooManyRequests: 'Too many requests from this address: wait a minute and try again.',
  unknownTopic: (slug: string) => `There is no topic "${slug}".`,
  currentPasswordWrong: 'That is not your current password.',
  resetSent: 'If an account uses that address, a link to choose a new password is on its way. The link works once, for an hour.',
  resetLinkDead: 'This link has expired or has been used. Ask for a new one.',
  resetDone: 'Your password is changed. Sign in with it.',
  resetEmailSubject: 'Choose a new Lectern password',
  resetEmailText: (link: string) =>
    `Someone (we hope you) asked to choose a new password for your Lectern account.\n\nOpen this link within an hour to choose it:\n${link}\n\nThe link works once. If you did not ask, ignore this email: your password stays as it is.`,
  /** §5 password confirmation, word for word */
  confirmNeedsNew: 'Please enter a new password first.',
  confirmNeedsValidNew: 'Please make sure your new password is valid first.',
  confirmMatch: 'We have a match!',
  confirmMismatch: 'This must match your new password.',
  welcome: (trialEnd: string) => `Welcome to Lectern! Your free trial runs until ${trialEnd}.`,
  /** the welcome message's link to /subscribe/ (§2 "/subscribe/ (linked from the trial welcome message)") */
  welcomeSubscribe: 'Choose a plan now',
  /** §6: expired or cancelled subscribers are told to 'subscribe' or 'reactivate' in the queue section (and on the home) */
  expiredPrompt: 'Your subscription has ended. Subscribe or reactivate your account to read the titles in your queue again.',
  cancelledPrompt: 'Your subscription is cancelled: you read until the end of the period you paid for. Reactivate it to keep your queue open after that.',
  subscribe: 'Subscribe',
  reactivate: 'Reactivate',
  subscriptionPromptLabel: 'Your subscription',
  /** §2 "link from a nag bar to the business offering" */
  teamOffer: 'Learning together? Lectern for teams',
} as const;

// ---- the first operator's set-up (docs/decisions.md "The first operator, from the browser"; routes/first-operator.ts,
// the /setup/ page, main.ts) ----

export const FIRST_OPERATOR_MESSAGES = {
  heading: 'Create the first operator account',
  intro: 'This library has no operator yet. The account made here is an admin: it runs the library from the operators\' console.',
  linkDead: 'This set-up link has been used or is no longer valid: an operator account already exists, or the server was restarted and printed a new link. Sign in, or use the link the server printed last.',
  submit: 'Create the operator account',
  printedIntro: 'No operator (admin) account exists yet. Open this one-time link in a browser to create the first one:',
  printedCli: (command: string) => `(or on the command line: ${command})`,
} as const;

// ---- annotations (reader.md §5, §8; the store's own details; core/annotations.ts) ----

export const ANNOTATION_MESSAGES = {
  /** §5 placeholder of the note editor */
  notePlaceholder: 'Add a note using markdown (optional)',
  /** §8 store notices, keyed on the status code; `{action}` is create / update / delete / read */
  notAllowed: (action: string) => `Sorry you are not allowed to ${action} this annotation`,
  storeUnreachable: 'Sorry we could not connect to the annotations store',
  storeFailed: 'Sorry something went wrong with the annotation store',
  couldNot: (action: string) => `Sorry we could not ${action} this annotation`,
  couldNotSearch: 'Sorry we could not search the store for annotations',
  couldNotLoad: 'Sorry we could not read the annotations from the store',
  tokenFailed: "Couldn't get auth token:",
  unsupportedBrowser: 'Sorry your current browser does not support the Annotator',
  deleteConfirm: 'Are you sure you want to permanently delete this note?',
  deleteNo: 'No, I changed my mind',
  deleteYes: 'Yes, delete it',
  // The server's details (ours).
  notFound: 'Annotation not found.',
  signInToAnnotate: 'Sign in to add highlights and notes.',
  denied: (action: AnnotationAction) => `You may not ${action === 'admin' ? 'change the permissions of' : action} this annotation.`,
  previewOnly: 'Only preview creators can add preview content.',
  chapterNeeded: 'Annotations are made on a chapter: the store address must name one.',
  textTooLong: `Notes are limited to ${NOTE_MAX_LENGTH} characters.`,
  fragmentEmpty: 'fragment is required.',
  // The notes panel (ours).
  notesHeading: 'Notes and highlights',
  notesEmpty: 'Select words in the book to highlight them or add a note.',
  notesNoneTagged: (tag: string) => `No notes tagged ${tag}.`,
  orphaned: "Not found in the chapter's text any more",
  // The editor's sharing boxes (ours).
  publicOption: 'Public (anyone can read this note)',
  forcedPrivate: 'Notes are private in this library.',
} as const;

/** §5 promotion codes (word for word where the spec quotes them) and the subscription changes. */
export const SUBSCRIPTION_MESSAGES = {
  codeNotValid: 'The code entered is not valid.',
  codeAlreadyApplied: 'This code has already been applied.',
  codeApplied: (code: string) => `${code} has been applied.`,
  codeExpired: 'This code has expired.',
  codeUsedUp: 'This code has been used as many times as it may be.',
  /** the chosen plan first: the code's own plan is what the reader may switch to */
  codeOtherPlan: (chosen: string, codePlan: string) => `This code is not for the ${chosen} plan: it is for the ${codePlan} plan.`,
  /** the operator's `promo:add` of a code that is already stored */
  codeExists: (code: string) => `The code ${code} exists already.`,
  notSubscribed: 'There is no subscription to cancel.',
  nothingToReactivate: 'There is no cancelled or ended subscription to reactivate.',
  noSuchInvoice: 'No such invoice.',
  invoiceNotOpen: 'That invoice is not open.',
  changedMeanwhile: 'Your account changed meanwhile: reload the page and try again.',
  countryUnknown: 'Choose your country from the list.',
  agreementRequired: 'Please confirm that your subscription starts at once.',
  /** the EU agreement's checkbox: reading starts at once, so the 14-day right of withdrawal ends */
  /** the account page's thanks after a subscribe, upgrade or reactivation */
  subscribed: (plan: string) => `You're subscribed to ${plan}. Thank you!`,
  euAgreement: 'I want my subscription to start at once, and I understand that I then lose my 14-day right of withdrawal.',
} as const;

// ---- finding (reader.md §8) ----

/** reader.md §8: what the in-book search panel says. */
export const IN_BOOK_SEARCH_MESSAGES = {
  noResults: (query: string) => `No results for "${query}"`,
  failed: 'Something has gone wrong... please try again later.',
  wholeSite: 'Search the whole site',
} as const;

// ---- catalog listings (a 400 naming the field) ----

export const CATALOG_MESSAGES = {
  /** a `cursor` that this server did not give out, or one of another sort order */
  cursorInvalid: 'cursor is not one this list gave out for this order: start again from the first page.',
  /** `page` beyond the pages reached by number (later pages are reached with the `next` link's cursor) */
  pageTooDeep: (maxPage: number) => `page goes up to ${maxPage} for this page size: follow the next link for later pages.`,
} as const;

// ---- the home dashboard (docs/decisions.md "The home dashboard") ----

export const HOME_MESSAGES = {
  headings: {
    announcements: 'Announcements',
    continue_reading: 'Continue reading',
    queue: 'Your queue',
    last_viewed: 'Last viewed',
    new: 'New in the library',
    recommended: 'Recommended for you',
    editors_picks: "Editors' picks",
    popular: 'Popular',
    trending_in_your_topics: 'Trending in your topics',
    popular_videos: 'Popular videos',
    audio_books: 'Audio books',
    case_studies: 'Case studies',
    topics: 'Browse by topic',
  },
  /** the anonymous home's calls to action: top, middle and bottom (library-playlists-account.md §2) */
  visitorTitle: 'Every book, video and course you need to keep learning',
  visitorLead: 'Read technical books and documents in your browser, keep a queue, and pick up where you left off on any device.',
  visitorMiddle: 'Like what you see? Everything here is yours to read with a free trial.',
  visitorBottom: 'Start learning today: your first days are free.',
  startTrial: 'Start your free trial',
  signIn: 'Sign in',
  seeAll: 'See all',
  notInterested: 'Not interested',
  rejected: (title: string) => `We will not recommend "${title}" again.`,
  /** a reader's first home page, then every later one (docs/decisions.md "The paying reader's path") */
  welcome: (name: string) => (name ? `Welcome, ${name}` : 'Welcome to Lectern'),
  welcomeBack: (name: string) => (name ? `Welcome back, ${name}` : 'Welcome back'),
  dismiss: 'Dismiss',
  emptyLibrary: 'The library is empty for now. An operator adds books with the import command.',
  loadFailed: 'The home page could not be loaded. Please try again.',
  /** admin API and CLI, 400s naming the field */
  unknownBook: (bookId: string) => `book_ids: there is no title ${bookId}`,
  announcementNotFound: 'There is no such announcement.',
} as const;

// ---- live training (library-playlists-account.md §4; docs/decisions.md "Live training") ----

export const LIVE_TRAINING_MESSAGES = {
  /** §4, word for word */
  startingSoon: 'Online training starting soon',
  inProgress: 'Online Training in Progress',
  goToCourse: 'Go to course',
  joinNow: 'Join now',
  // ours
  regionLabel: 'Live training',
  dismiss: 'Dismiss this live training notice',
  startsAt: (when: string) => `Starts ${when}`,
  endsAt: (when: string) => `Until ${when}`,
  presentedBy: (names: string) => `With ${names}`,
  indexTitle: 'Live training',
  indexLead: 'Online courses taught live by their authors. Join from your browser; ask questions as you go.',
  fullSchedule: 'Full schedule',
  fullScheduleLead: 'Every upcoming session of every course, in your time zone.',
  allTopics: 'All topics',
  noCourses: 'No live training is scheduled yet. Check back soon.',
  noCoursesInTopic: 'No live training in this topic yet.',
  noUpcoming: 'No sessions are scheduled for this course right now.',
  upcomingSessions: 'Upcoming sessions',
  nextSession: (when: string) => `Next session ${when}`,
  liveNow: 'Live now',
  signInToJoin: 'Sign in with an active subscription to join the sessions.',
  courseNotFound: 'We could not find that live training course.',
  loadFailed: 'Live training could not be loaded. Please try again.',
  // admin API and CLI (400s naming the field)
  slugTaken: (slug: string) => `slug: a course named ${slug} exists already`,
  endBeforeStart: 'end_datetime must be after start_datetime',
  joinUrlHttp: 'join_url must be an http(s) address',
  imageUrl: 'must be a path of this site (/…) or an http(s) address',
  eventNotFound: 'There is no such live training event.',
} as const;

// ---- analytics (docs/decisions.md "Analytics"): 400s naming the field ----

export const ANALYTICS_MESSAGES = {
  unknownCategory: 'not a category of analytics events',
  actionShape: 'must be lower-case letters, digits and dashes, starting with a letter',
  controlCharacters: 'must not hold control characters',
  pathShape: "must be a path of this site, starting with '/', without a query",
  dateShape: 'must be a day (2026-05-01) or an ISO date and time',
  fromAfterTo: 'from must be before to',
} as const;

// ---- teams (team plans, members, invitations; core/teams.ts; docs/decisions.md "Teams") ----

export const TEAM_MESSAGES = {
  seatsNumber: 'Enter a whole number of seats, 1 or more.',
  seatsMax: (max: number) => `A team can have at most ${max} seats.`,
  nameMax: (max: number) => `Team names are limited to ${max} characters.`,
  nameOneLine: 'Team names are one line of plain text: no line breaks, tabs or other control characters.',
  tooManyAtOnce: (max: number) => `Invite at most ${max} people at once.`,
  tooManyToday: (max: number) => `You have sent ${max} invitations in the last 24 hours, the most a day for this team. Try again tomorrow.`,
  sameEmailTwice: 'The same email address is in the list twice.',
  notEnoughSeats: (free: number) =>
    free <= 0 ? 'Every seat is taken. Add seats before you invite anyone else.' : `Only ${free} seat${free === 1 ? ' is' : 's are'} free. Add seats or invite fewer people.`,
  seatsBelowUsed: (used: number) => `${used} seats are taken by members and pending invitations: remove some before you go below that.`,
  alreadyInTeam: 'You are already in a team. Leave it before you start or join another.',
  alreadyOwner: 'You already own a team.',
  alreadyMember: (email: string) => `${email} is already a member of this team.`,
  alreadyInvited: (email: string) => `${email} has already been invited.`,
  teamNotLive: "The team's subscription has ended: reactivate it before you invite anyone.",
  joinLapsed: "This team's subscription has ended, so it cannot take new members. Ask its owner to reactivate it.",
  notFound: 'We could not find that team.',
  invitationNotFound: 'We could not find that invitation.',
  memberNotFound: 'We could not find that member.',
  ownerStays: 'The owner cannot be removed from their own team.',
  invitationDead: 'This invitation has expired, has been revoked or has been used. Ask the team owner for a new one.',
  invitationAccountExists: 'An account already uses this address: sign in to accept the invitation.',
  invitationSignIn: 'Sign in, or choose a password to create your account, to accept the invitation.',
  notCancelled: 'There is no cancelled team subscription to reactivate.',
  notActive: 'There is no active team subscription to cancel.',
  ownerOnly: "Only the team's owner can do that.",
  changedMeanwhile: 'The team changed meanwhile: reload the page and try again.',
  joined: (team: string) => `You are now a member of ${team}. Happy reading!`,
  invitationEmailSubject: (team: string) => `You are invited to join ${team} on Lectern`,
  invitationEmailText: (team: string, owner: string, link: string, days: number) =>
    `${owner} invites you to join the team ${team} on Lectern, the online library: as a member you read every book, video and audiobook while the team's subscription runs.\n\nOpen this link within ${days} days to accept:\n${link}\n\nThe link works once. If you do not want to join, ignore this email.`,
} as const;

/** Read aloud in the reader (docs/decisions.md "Read aloud"): media overlays and the browser's speech synthesis. */
export const READ_ALOUD_MESSAGES = {
  button: 'Read aloud',
  bar: 'Read aloud',
  play: 'Play',
  pause: 'Pause',
  previous: 'Previous phrase',
  next: 'Next phrase',
  stop: 'Stop reading aloud',
  speed: 'Speed',
  narration: 'Narration',
  voice: 'Browser voice',
  reading: (chapter: string) => `Reading aloud: ${chapter}`,
  paused: 'Reading aloud paused.',
  stopped: 'Stopped reading aloud.',
  speedSet: (speed: string) => `Speed ${speed}`,
  endOfBook: 'Read aloud to the end of the book.',
  unsupported: 'This browser cannot read aloud.',
  noVoice: 'This browser has no voice to read this book aloud.',
  audioFailed: 'The book’s narration could not be played.',
  /** The setting that passes over the structures the book marks as skippable (EPUB Media Overlays "Skippability"). */
  skip: 'Skip extras',
  skipHint: 'Page numbers, notes, sidebars, tables and lists, as the book marks them, are not read.',
  skipOn: 'Page numbers, notes and other extras will be skipped.',
  skipOff: 'Everything will be read, extras too.',
  /** Escape ("Escapability"): the phrase being read is in a structure; this goes on after it. */
  escape: (structure: string | null | undefined) => `Skip to after ${structureName(structure)}`,
  escaped: (structure: string | null | undefined) => `Skipped to after ${structureName(structure)}.`,
} as const;

/** How a structure of the book (its epub:type, EPUB 3 Structural Semantics) is named in the read-aloud bar. */
const STRUCTURE_NAMES: Record<string, string> = {
  table: 'the table',
  'table-row': 'the table row',
  'table-cell': 'the table cell',
  list: 'the list',
  'list-item': 'the list item',
  figure: 'the figure',
  aside: 'the aside',
  sidebar: 'the sidebar',
  note: 'the note',
  footnote: 'the note',
  endnote: 'the note',
  rearnote: 'the note',
  footnotes: 'the notes',
  rearnotes: 'the notes',
  endnotes: 'the notes',
  marginalia: 'the margin note',
  annotation: 'the annotation',
  practice: 'the exercise',
  help: 'the help',
  warning: 'the warning',
  notice: 'the notice',
  epigraph: 'the epigraph',
  bibliography: 'the bibliography',
  glossary: 'the glossary',
  index: 'the index',
  toc: 'the table of contents',
  'page-list': 'the list of pages',
  dedication: 'the dedication',
  preface: 'the preface',
  foreword: 'the foreword',
  introduction: 'the introduction',
  appendix: 'the appendix',
};

function structureName(structure: string | null | undefined): string {
  return (structure && STRUCTURE_NAMES[structure]) || 'this part';
}

/**
 * The video and audiobook players (reader.md §2 "Video chapter screen", §6, §8 "Video"; docs/decisions.md "Media
 * serving"). The quoted sentences are the spec's, word for word; the rest (labels, the failure page's wording) are
 * ours.
 */
export const MEDIA_MESSAGES = {
  /** reader.md §2: the video screen's header */
  videoHeader: (x: number, y: number, title: string) => `Video ${x} of ${y} from ${title}`,
  /** reader.md §6 / §8: a 403 on the video session; a preview then plays */
  forbidden: 'Forbidden',
  forbiddenClip: 'You may not have permission to view this clip in full.',
  /** reader.md §8: a session timeout, then the reload hint; the variant that falls back adds the preview line */
  sessionTimeout: 'Very sorry, the video provider timed out generating a session.',
  reloadToTryAgain: 'Reload the page to try again.',
  previewWillPlay: 'A preview of the clip will now play.',
  /** reader.md §8: the preview's end */
  previewEnded: 'The preview has ended.',
  /** reader.md §8: "a missing player library gives an error notice with the video-unavailable text" (ours: the words) */
  videoUnavailable: 'This video is unavailable right now.',
  /** reader.md §2: the video-failure page blames blockers and network problems and points to support (ours: the words) */
  failureHeading: 'The video could not be played',
  failureBlockers:
    'An ad blocker, a privacy extension or a firewall may be stopping the video from loading. Allow this site in them, or try another browser.',
  failureNetwork: 'A slow or interrupted network connection can stop it too: check your connection and reload the page.',
  failureSupport: 'If it still does not play, contact support and tell us which title and chapter you were watching.',
  /** the same, when the operator set SUPPORT_EMAIL: the address is a mailto link in the sentence */
  failureSupportAt: 'If it still does not play, write to support at',
  failureSupportAtEnd: 'and tell us which title and chapter you were watching.',
  /** the mailto link's subject */
  failureSupportSubject: (title: string, chapter: string) => `Video could not be played: ${title}${chapter ? ` / ${chapter}` : ''}`,
  audioUnavailable: 'This chapter could not be played.',
  // the players' controls
  tabsLabel: 'Video panel',
  tabContents: 'Table of contents',
  tabDescription: 'Description',
  tabTranscript: 'Transcript',
  noDescription: 'This video has no description.',
  noTranscript: 'This video has no transcript.',
  speed: 'Playback speed',
  captions: 'Captions',
  play: 'Play',
  pause: 'Pause',
  back10: 'Back 10 seconds',
  forward30: 'Forward 30 seconds',
  previousChapter: 'Previous chapter',
  nextChapter: 'Next chapter',
  chapters: 'Chapters',
  sleepTimer: 'Sleep timer',
  sleepOff: 'Off',
  sleepMinutes: (m: number) => `${m} minutes`,
  sleepEndOfChapter: 'End of chapter',
  sleepSet: (what: string) => `Sleep timer: ${what}`,
  sleepDone: 'The sleep timer paused playback.',
  chapterOf: (x: number, y: number) => `Chapter ${x} of ${y}`,
  previewBadge: 'Preview',
  signInForFull: 'Sign in or subscribe to play it all.',
  resumedAt: (time: string) => `Resumed at ${time}`,
  upNext: (label: string) => `Up next: ${label}`,
} as const;

/**
 * The media session and streams (server: services/media.ts; reader.md §7 "kaltura_session"; docs/decisions.md "Media
 * serving").
 */
export const MEDIA_SESSION_MESSAGES = {
  notMedia: 'This title has no video or audio.',
  partNotFound: 'We could not find that part of this title.',
  noPreview: 'This title has no preview.',
  noCaptions: 'This part has no captions.',
  /** a stream asked without a session, with one that expired, or with another account's or title's */
  sessionInvalid: 'This video session has expired or is not yours. Reload the page to try again.',
} as const;

// ---- the marketing modules (library-playlists-account.md §2; docs/decisions.md "The marketing modules") ----

export const MARKETING_MESSAGES = {
  // the newsletter promo on the home: subscribe, sample, dismiss, see-all (§2)
  newsletterTitle: 'What is new in the library, by email',
  newsletterLead: (days: number) =>
    days === 7 ? 'Once a week, a short list of the titles added to the library. Nothing else.' : `Every ${days} days, a short list of the titles added to the library. Nothing else.`,
  newsletterSubscribe: 'Subscribe',
  newsletterSubscribed: 'You are subscribed. The next email lists what is added until then.',
  newsletterSample: 'See a sample',
  newsletterSampleHeading: 'The next email, as it stands',
  newsletterSampleEmpty: 'Nothing new yet since the last email.',
  newsletterSampleMore: (n: number) => `and ${n} more`,
  newsletterSeeAll: 'See all new titles',
  newsletterDismiss: 'No thanks',
  newsletterFailed: 'Your choice could not be saved. Please try again.',
  // the account page
  accountNewsletterHeading: 'Newsletter',
  accountNewsletterOn: 'You receive an email of what is new in the library.',
  accountNewsletterOff: 'You do not receive the newsletter.',
  accountNewsletterUnsubscribe: 'Unsubscribe',
  accountNewsletterSubscribe: 'Subscribe to the newsletter',
  // the mail
  mailSubject: (n: number) => (n === 1 ? 'New in the library: 1 title' : `New in the library: ${n} titles`),
  mailIntro: (n: number) => (n === 1 ? 'One title was added to the library since the last email:' : `${n} titles were added to the library since the last email:`),
  mailMore: (n: number, url: string) => `…and ${n} more: ${url}`,
  mailFooter: (url: string) => `You receive this because you subscribed to the newsletter. Unsubscribe with one click: ${url}`,
  // the unsubscribe page (no sign-in)
  unsubscribeTitle: 'Unsubscribe from the newsletter',
  unsubscribeQuestion: (email: string) => `Stop sending the newsletter of new titles to ${email}?`,
  unsubscribeButton: 'Unsubscribe',
  unsubscribeDone: (email: string) => `Done: ${email} no longer receives the newsletter.`,
  unsubscribeAlready: (email: string) => `${email} does not receive the newsletter.`,
  unsubscribeBadLink: 'This unsubscribe link is not valid or has expired. Sign in and unsubscribe on your account page.',
  unsubscribeFailed: 'Unsubscribing failed. Please try again.',
  // the tutorial block for new readers
  tutorialTitle: 'New here? Four things to know',
  tutorialSteps: [
    'Find a title with the search box at the top, or browse the topics below.',
    'Add titles to your queue with the bookmark icon on any card: your queue is your reading list.',
    'Open a book and it remembers your place, on every device you sign in on.',
    'Select text in a book to highlight it or write a note.',
  ],
  tutorialDismiss: 'Got it, hide this',
  tutorialLabel: 'Getting started',
  // recent items with load-more
  recentHeading: 'Recently added',
  recentLoadMore: 'Load more',
  recentLoading: 'Loading…',
  recentFailed: 'More titles could not be loaded. Please try again.',
  recentEnd: 'That is everything in the library.',
  // buy links
  buyLink: 'Buy this title',
  buyLinkNote: '(opens the bookshop)',
  // editors' transformation playlists
  transformationEyebrow: (topic: string) => `Transformation playlist · ${topic}`,
  transformationCurator: (name: string) => `Curated by ${name}`,
  transformationCount: (n: number) => (n === 1 ? '1 title' : `${n} titles`),
  transformationBrowseTopic: (topic: string) => `More in ${topic}`,
  transformationNotFound: 'There is no such playlist of yours.',
  transformationDefault: 'Your queue stays private: publish another playlist.',
  unknownTopic: (slug: string) => `There is no topic ${slug}.`,
  // the 400s
  badToken: 'This unsubscribe link is not valid or has expired.',
} as const;

// ---- relative times (library-playlists-account.md §9 thresholds; core/format.ts relativeTime) ----

export const TIME_MESSAGES = {
  fewSeconds: 'a few seconds',
  one: { minute: 'a minute', hour: 'an hour', day: 'a day', month: 'a month', year: 'a year' },
  many: (count: number, unit: 'minute' | 'hour' | 'day' | 'month' | 'year') => `${count} ${unit}s`,
  past: (distance: string) => `${distance} ago`,
  future: (distance: string) => `in ${distance}`,
} as const;

/**
 * Keyboard shortcuts (library-playlists-account.md §9 "Shortcuts: Esc closes modals, Shift+/ help, / focus search,
 * U top, T contents, J/K cards, D delete recommendation, Shift+Enter open, F/G font size; arrows, space and digits 1
 * to 9 also mapped"; §2 "keyboard shortcuts popup", "/u/shortcuts/ (settings page where shortcuts are disabled)").
 * The help popup and the settings page are made from the web app's registry (shared/shortcuts/registry.ts).
 */
export const SHORTCUT_MESSAGES = {
  helpTitle: 'Keyboard shortcuts',
  scopes: { site: 'On every page', reader: 'In the reader', player: 'In the video and audio players' },
  labels: {
    close: 'Close a dialog, a panel or the full-screen view',
    help: 'Show the keyboard shortcuts',
    search: 'Focus search',
    top: 'Go to the top of the page',
    'next-card': 'Next card',
    'previous-card': 'Previous card',
    reject: 'Delete the focused recommendation (Not interested)',
    open: 'Open the focused card',
    contents: 'Show or hide the contents',
    'font-smaller': 'Smaller font size',
    'font-larger': 'Larger font size',
    immersive: 'Hide or show the bars',
    'book-search': 'Search this book',
    'skip-structure': 'Skip the table, list or note being read aloud',
    page: 'Turn or scroll the page',
    play: 'Play or pause',
    back: 'Back a few seconds',
    forward: 'On a few seconds',
    fullscreen: 'Full screen',
    captions: 'Captions on or off',
    seek: 'Go to 10% to 90% of the part',
  },
  /** how the help popup and the settings page name keys */
  keyNames: { escape: 'Esc', shift: 'Shift', enter: 'Enter', space: 'Space', arrows: 'Arrow keys', pageKeys: 'Page Up, Page Down, Home, End', digits: '1 to 9' },
  keysColumn: 'Keys',
  actionColumn: 'Action',
  /** the popup's list when nothing but Esc and the popup's own key work on the page */
  noneHere: 'This page has no shortcuts of its own.',
  /** the popup's link to the settings page (signed-in readers) */
  manage: 'Turn single-key shortcuts on or off',
  /** the settings page (/u/shortcuts/) */
  pageTitle: 'Keyboard shortcuts',
  pageLead: 'Shortcuts let you move around Lectern from the keyboard. Press Shift+/ on any page to see the ones that work there.',
  singleKeyLabel: 'Single-key shortcuts',
  singleKeyToggle: 'Use single-key shortcuts',
  singleKeyHint:
    'Shortcuts made of one letter, digit or sign, such as J, / or 1. Turn them off if you use speech input or they get in your way; Esc, the arrow keys, space and Shift+Enter keep working.',
  savedOn: 'Single-key shortcuts are on.',
  savedOff: 'Single-key shortcuts are off.',
  saveFailed: 'Your choice could not be saved. Please try again.',
  onPhones: 'On phones and tablets without a mouse or trackpad, single-key shortcuts are off whatever is chosen here.',
  allShortcuts: 'All shortcuts',
  singleKeyMark: 'single key',
} as const;

/** A scripted title’s consent (docs/decisions.md): what the reader is told when asked, and in the title's settings. */
export const SCRIPTS_CONSENT_MESSAGES = {
  title: 'Run this book’s scripts?',
  body: 'This book contains scripts (small programs) that make it interactive. They run on a web address of their own, apart from your account and from other books, and can store data there. You can change your answer later in the reader’s settings.',
  allow: 'Run scripts',
  decline: 'Read without scripts',
  settingsHeading: 'This book’s scripts',
  allowedNow: 'You allowed this book’s scripts to run.',
  declinedNow: 'You chose to read this book without its scripts.',
  withdraw: 'Withdraw my answer',
  withdrawn: 'Your answer is withdrawn: you will be asked again.',
  /**
   * Written at import where a book's `<iframe>` showed one of its own pages (docs/decisions.md "A book's iframes"):
   * a scripted title's page on its own origin shows the frame instead; read without scripts, this note stays.
   */
  embeddedPage: (label: string) => (label ? `An embedded page of this book is not shown here: ${label}.` : 'An embedded page of this book is not shown here.'),
} as const;
