export * from './messages.ts';
export * from './constants.ts';
export * from './format.ts';
export * from './paths.ts';
export * from './schemas.ts';
export * from './playlists.ts';
export * from './reader.ts';
export * from './reader-crypto.ts';
