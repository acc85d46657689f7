/**
 * A reader thread for sqlite-readers.test.ts that ends in the middle of a statement when sent `exit`, as a thread
 * killed by a native crash would; anything else it answers with no rows.
 */
import { parentPort } from 'node:worker_threads';

parentPort.on('message', (job) => {
  if (job.sql === 'exit') process.exit(7);
  parentPort.postMessage({ id: job.id, rows: [] });
});
