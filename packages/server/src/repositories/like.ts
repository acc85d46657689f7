/**
 * LIKE patterns from user text, on both engines: the wildcards % and _ (and the escape itself) are escaped with \,
 * so each query using one says `escape '\\'` (SQLite has no default escape character).
 */
export const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Text starting with `s`. */
export const likePrefix = (s: string) => `${likeEscape(s)}%`;

/** Text containing `s`. */
export const likeContains = (s: string) => `%${likeEscape(s)}%`;
