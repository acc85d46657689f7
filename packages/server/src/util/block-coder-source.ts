/** Where the block coder's WebAssembly and its WAT source live, and how the one is made from the other (wabt). */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

export const BLOCK_CODER_WAT = fileURLToPath(new URL('./block-coder.wat', import.meta.url));
export const BLOCK_CODER_WASM = fileURLToPath(new URL('./block-coder.wasm', import.meta.url));

/** block-coder.wat assembled (wabt is a development dependency: only the script and the test load it). */
export async function assembleBlockCoder(): Promise<Uint8Array> {
  const { default: init } = await import('wabt');
  const wabt = await init();
  const module = wabt.parseWat('block-coder.wat', fs.readFileSync(BLOCK_CODER_WAT, 'utf8'));
  try {
    return module.toBinary({}).buffer;
  } finally {
    module.destroy();
  }
}
