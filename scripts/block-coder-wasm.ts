/**
 * Assembles packages/server/src/util/block-coder.wat into block-coder.wasm beside it (wabt's wat2wasm, no debug
 * names): run after changing the WAT; packages/server/test/services/block-coder.test.ts checks the two agree.
 */
import fs from 'node:fs';
import { assembleBlockCoder, BLOCK_CODER_WASM } from '../packages/server/src/util/block-coder-source.ts';

fs.writeFileSync(BLOCK_CODER_WASM, await assembleBlockCoder());
console.log(`wrote ${BLOCK_CODER_WASM}`);
