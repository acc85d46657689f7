import { sanitizeFragment } from '../../packages/server/src/ingest/render.ts';
console.log(sanitizeFragment('<p id="x" hidden="">hi</p><p hidden>b</p>'));
