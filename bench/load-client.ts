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
  /** one request after another from this list, round and round (the cold case) */
  sequence?: { headers: Record<string, string>; body: string }[];
  /** in the cold case, where in the sequence each of this client's connections starts */
  offsets: number[];
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

type Method = autocannon.Request['method'];

/**
 * The cold case: one autocannon instance per connection, each going round the sequence from its own place, with
 * the requests written out once before the run (a setupRequest function would build every request anew in the
 * client, which then held the bare anchor to under a third of its hot rate).
 */
function coldRuns(run: ClientRun, sequence: NonNullable<ClientRun['sequence']>) {
  return run.offsets.map((offset) => {
    const rotated = [...sequence.slice(offset), ...sequence.slice(0, offset)];
    return autocannon({
      url: run.url,
      connections: 1,
      pipelining: run.pipelining,
      duration: run.seconds,
      requests: rotated.map((r) => ({ method: run.method as Method, headers: r.headers, body: r.body })),
    });
  });
}

process.on('message', (run: ClientRun) => {
  void (async () => {
    const results = await Promise.all(
      run.sequence
        ? coldRuns(run, run.sequence)
        : [
            autocannon({
              url: run.url,
              connections: run.connections,
              pipelining: run.pipelining,
              headers: run.headers,
              method: run.method as Method,
              body: run.body,
              duration: run.seconds,
            }),
          ],
    );
    const statuses: Record<string, number> = {};
    for (const r of results) {
      for (const [code, s] of Object.entries(r.statusCodeStats ?? {})) statuses[code] = (statuses[code] ?? 0) + (s as { count: number }).count;
    }
    const result: ClientResult = {
      total: results.reduce((n, r) => n + r.requests.total, 0),
      statuses,
      errors: results.reduce((n, r) => n + r.errors, 0),
      p99: Math.max(...results.map((r) => r.latency.p99)),
    };
    process.send!(result);
  })();
});
process.send!({ ready: true });
