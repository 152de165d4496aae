// Moves the request log's write-ahead log into the database file, on its own thread: a checkpoint
// syncs files to disk, and doing it here keeps that wait off the gateway's commits (the writer's
// connection has automatic checkpoints turned off). PASSIVE never blocks the writer or readers.

import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

const { logFile, intervalMs } = workerData as { logFile: string; intervalMs: number };
const db = new Database(logFile);
db.pragma('busy_timeout = 1000');

const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    parentPort?.postMessage({ op: 'log', level: 'warn', msg: 'request log checkpoint failed', err: (err as Error).message });
  }
}, intervalMs);

parentPort?.on('message', (msg: { op: string }) => {
  if (msg.op !== 'close') return;
  clearInterval(timer);
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // the next start checkpoints
  }
  db.close();
  parentPort?.postMessage({ op: 'closed' });
});
