/**
 * Turns of the event loop for others while a request works through the database (docs/decisions.md "Heavy requests take
 * turns": "no request may hold the event loop for more than 20 ms"). better-sqlite3 is synchronous under kysely's
 * promises: a request's queries and the code between them run as one chain of microtasks, so ten requests arriving
 * together ran back to back without a single timer or socket read between them (the scale bench saw event-loop delays
 * of 150 ms at 1,000 titles). After a query that ends a slice of work longer than SLICE_MS, the chain waits for one
 * `setImmediate`: the loop turns, timers and I/O run, then the request goes on. Cheap when idle (a clock read per
 * query); on PostgreSQL, where every query already waits for the network, it rarely fires.
 */
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';

export const SLICE_MS = 8;

/** When the slice of work running now began (as far as the queries can tell), and whether a turn is awaited. */
let sliceStart = 0;
let turnPending = false;

/** The loop turns at its next check phase: whatever runs after it starts a new slice. */
function noteTurn() {
  turnPending = true;
  setImmediate(() => {
    turnPending = false;
  });
}

export class YieldPlugin implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const now = performance.now();
    // The first query since the loop turned starts the slice (the work before it in this turn is not counted).
    if (!turnPending) {
      sliceStart = now;
      noteTurn();
    } else if (now - sliceStart > SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return args.result;
  }
}
