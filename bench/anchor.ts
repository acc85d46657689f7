/**
 * The benchmarks' anchor: a bare Fastify server in a process of its own (in Lectern's process it read 15-50 % high:
 * the two shared one event loop, one heap and one garbage collector). `GET /bare` answers {"hello":"world"}; with
 * `--answers file` (written by bench/servers.ts) it also sends Lectern's exact answers with no work: `GET /floor`
 * the chapter route's, and `POST /nest/epub/block/` the block answer Lectern gave the same reader (cookie) for the
 * same book and chapter, same bytes and headers. Prints {"anchorPort": n} and serves until killed.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { type AnchorAnswer, type AnchorAnswers, blockKey } from './replay.ts';

const { values } = parseArgs({ options: { answers: { type: 'string' } } });
process.on('SIGTERM', () => process.exit(0));

const anchor = Fastify({ logger: false });
anchor.get('/bare', async () => ({ hello: 'world' }));
if (values.answers) {
  const answers = JSON.parse(fs.readFileSync(values.answers, 'utf8')) as AnchorAnswers;
  const decoded = (a: AnchorAnswer) => ({ headers: a.headers, body: Buffer.from(a.body, 'base64') });
  const chapter = decoded(answers.chapter);
  const block = new Map(Object.entries(answers.block).map(([k, a]) => [k, decoded(a)]));
  anchor.get('/floor', async (_request, reply) => reply.headers(chapter.headers).send(chapter.body));
  anchor.post('/nest/epub/block/', async (request, reply) => {
    const answer = block.get(blockKey(request.headers.cookie, request.body as Record<string, unknown>));
    if (!answer) return reply.code(404).send({ detail: 'no such answer' });
    return reply.headers(answer.headers).send(answer.body);
  });
}
await anchor.listen({ port: 0, host: '127.0.0.1' });
const address = anchor.server.address();
console.log(JSON.stringify({ anchorPort: typeof address === 'object' && address ? address.port : 0 }));
