/**
 * What the import screen accepts, in one list: a new kind of file is one more entry here (the server decides
 * what it can read; this list only says what the picker offers and what is refused before any byte is sent).
 * Kept in step with the server's ingest (ingest/media-job.ts: VIDEO_EXTENSIONS, AUDIO_EXTENSIONS).
 */
export interface ImportKind {
  readonly kind: string;
  /** how the console names it */
  readonly label: string;
  /** lower-case extensions without the dot */
  readonly extensions: readonly string[];
  /** a file that only goes with others in a folder (a part's transcript, a manifest) */
  readonly companion?: boolean;
}

export const IMPORT_KINDS: readonly ImportKind[] = [
  { kind: 'epub', label: 'EPUB book', extensions: ['epub'] },
  { kind: 'pdf', label: 'PDF document', extensions: ['pdf'] },
  {
    kind: 'video',
    label: 'Video',
    extensions: ['mp4', 'm4v', 'mov', 'mkv', 'webm', 'avi', 'wmv', 'asf', 'flv', 'mpg', 'mpeg', 'ts', 'm2ts', '3gp', 'ogv'],
  },
  {
    kind: 'audio',
    label: 'Audio',
    extensions: ['mp3', 'm4a', 'm4b', 'aac', 'flac', 'wav', 'ogg', 'oga', 'opus', 'wma', 'aif', 'aiff', 'wv', 'ape', 'amr', 'caf'],
  },
  { kind: 'transcript', label: 'Transcript (in a folder of parts)', extensions: ['vtt', 'srt'], companion: true },
  { kind: 'manifest', label: 'Media manifest (lectern-media.json)', extensions: ['json'], companion: true },
];

const extensionOf = (name: string): string => {
  const base = name.split('/').pop() ?? name;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
};

/** The kind of a file by its name, or null when the console does not take it. */
export function kindOf(name: string): ImportKind | null {
  const ext = extensionOf(name);
  return IMPORT_KINDS.find((k) => k.extensions.includes(ext)) ?? null;
}

/** The file input's `accept`: every extension of every kind. */
export const IMPORT_ACCEPT = IMPORT_KINDS.flatMap((k) => k.extensions.map((e) => `.${e}`)).join(',');

/** The kinds a title can be made of on its own (what the drop zone lists). */
export const IMPORT_KIND_SUMMARY = IMPORT_KINDS.filter((k) => !k.companion)
  .map((k) => k.label)
  .join(', ');
