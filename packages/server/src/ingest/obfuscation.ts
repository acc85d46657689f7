/**
 * Font obfuscation (OCF 3.3 §4.4 and Adobe's older scheme): publishers scramble the start of embedded fonts so that
 * they cannot be lifted out of the zip as they are. Both are XOR with a key derived from the book's identifier:
 * - IDPF (http://www.idpf.org/2008/embedding): the first 1040 bytes, with the 20-byte SHA-1 of the unique
 *   identifier with its whitespace (U+0020, U+0009, U+000D, U+000A) removed;
 * - Adobe (http://ns.adobe.com/pdf/enc#RC): the first 1024 bytes, with the 16 bytes of the identifier's UUID
 *   ("urn:uuid:" and dashes removed, read as hex).
 * The importer restores the fonts once, so that they are stored and served as plain fonts.
 */
import { createHash } from 'node:crypto';
import { findAll, findFirst, parseXml, type DomElement } from './markup.ts';
import { normalisePath } from './paths.ts';

export const IDPF_OBFUSCATION = 'http://www.idpf.org/2008/embedding';
export const ADOBE_OBFUSCATION = 'http://ns.adobe.com/pdf/enc#RC';

export interface EncryptedEntry {
  /** The zip path the CipherReference names (relative to the zip root, decoded). */
  path: string;
  algorithm: 'idpf' | 'adobe' | 'other';
  /** The Algorithm URI as written. */
  uri: string;
}

/** An attribute whatever its letter case ("Algorithm", "URI") or prefix. */
function attr(element: DomElement, name: string): string | undefined {
  for (const [key, value] of Object.entries(element.attribs)) if (key.toLowerCase().replace(/^.*:/, '') === name) return value;
  return undefined;
}

/** The entries META-INF/encryption.xml lists, with their algorithm. */
export function readEncryption(xml: string): EncryptedEntry[] {
  const entries: EncryptedEntry[] = [];
  for (const data of findAll(parseXml(xml), 'encrypteddata')) {
    const method = findFirst(data, 'encryptionmethod');
    const reference = findFirst(data, 'cipherreference');
    const uri = (method && attr(method, 'algorithm')?.trim()) ?? '';
    const target = reference ? attr(reference, 'uri')?.trim() : undefined;
    const path = target ? normalisePath(target, true) : null;
    if (!path) continue;
    entries.push({ path, uri, algorithm: uri === IDPF_OBFUSCATION ? 'idpf' : uri === ADOBE_OBFUSCATION ? 'adobe' : 'other' });
  }
  return entries;
}

function idpfKey(identifier: string): Uint8Array | null {
  const stripped = identifier.replace(/[\u0020\u0009\u000d\u000a]/g, '');
  return stripped ? new Uint8Array(createHash('sha1').update(stripped, 'utf8').digest()) : null;
}

function adobeKey(identifier: string): Uint8Array | null {
  const hex = identifier.trim().replace(/^urn:uuid:/i, '').replace(/[-:]/g, '');
  return /^[0-9a-f]{32}$/i.test(hex) ? new Uint8Array(Buffer.from(hex, 'hex')) : null;
}

/** The font as it was before obfuscation (a copy); null when the identifier yields no key for the algorithm. */
export function deobfuscate(data: Uint8Array, algorithm: 'idpf' | 'adobe', identifier: string): Uint8Array | null {
  const key = algorithm === 'idpf' ? idpfKey(identifier) : adobeKey(identifier);
  if (!key) return null;
  const length = algorithm === 'idpf' ? 1040 : 1024;
  const out = new Uint8Array(data);
  for (let i = 0; i < Math.min(length, out.length); i++) out[i] = out[i]! ^ key[i % key.length]!;
  return out;
}

/** The same XOR (it is its own inverse): how a publisher obfuscates, for tests that build such books. */
export const obfuscate = deobfuscate;
