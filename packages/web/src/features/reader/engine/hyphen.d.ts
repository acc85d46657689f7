// The npm `hyphen` package (engine/hyphenation.ts) ships no types: its factory and its pattern modules.
declare module 'hyphen' {
  const createHyphenator: (patterns: unknown, options?: { html?: boolean; hyphenChar?: string; minWordLength?: number }) => (text: string) => string;
  export default createHyphenator;
}
declare module 'hyphen/patterns/*' {
  const patterns: unknown;
  export default patterns;
}
