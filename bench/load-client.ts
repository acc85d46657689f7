/**
 * One of bench/http.ts's load generators, a process of its own (forked with IPC): the parent sends it a run
 * (target, connections, seconds, where in a cold sequence to start), it runs autocannon and answers with the
 * requests it completed. bench/http.ts starts several and loads a server from all of them at once, so that one
 * client's event loop is not what limits the rate of a fast server (the bare anchor reached 5,900-8,200 requests/s
 * from a single client where a faster client side saw 21,000).
 */
import autocannon from 'autocannon';

export interface ClientRun {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** one request after another from this list, round and round, starting at `offset` (the cold case) */
  sequence?: { headers: Record<string, string>; body: string }[];
  offset: number;
  connections: number;
  seconds: number;
  pipelining: number;
}

export interface ClientResult {
  total: number;
  /** answers with each status code */
  statuses: Record<string, number>;
  errors: number;
  p99: number;
}

process.on('message', (run: ClientRun) => {
  void (async () => {
    const sequence = run.sequence;
    let next = run.offset;
    const requests = sequence
      ? [{ method: run.method as autocannon.Request['method'], setupRequest: (req: autocannon.Request) => ({ ...req, ...sequence[next++ % sequence.length]! }) }]
      : undefined;
    const r = await autocannon({
      url: run.url,
      connections: run.connections,
      pipelining: run.pipelining,
      headers: run.headers,
      method: run.method as autocannon.Request['method'],
      body: run.body,
      duration: run.seconds,
      requests,
    });
    const statuses: Record<string, number> = {};
    for (const [code, s] of Object.entries(r.statusCodeStats ?? {})) statuses[code] = (s as { count: number }).count;
    const result: ClientResult = { total: r.requests.total, statuses, errors: r.errors, p99: r.latency.p99 };
    process.send!(result);
  })();
});
process.send!({ ready: true });
