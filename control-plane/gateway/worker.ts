// The gateway's thread: every twin listener, the proxying, and the request log's journal (each
// answer leaves once its entry is journaled; the log writer's thread moves entries into SQLite).
// host.ts starts it and drives it with messages; no API request and no SQLite write runs here,
// so none can block a proxied request.

import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { LogJournal, packPosition } from './log-journal.js';
import { TwinGateway, type GatewayTwin } from './gateway.js';
import { STAT, type GatewayWorkerData, type ToWorker } from './protocol.js';

const data = workerData as GatewayWorkerData;
const port = parentPort!;
const stats = new BigInt64Array(data.stats);

function report(level: 'error' | 'warn', msg: string, err?: unknown): void {
  port.postMessage({ op: 'log', level, msg, err: err instanceof Error ? `${err.name}: ${err.message}` : err === undefined ? undefined : String(err) });
}

const journal = new LogJournal(
  data.journalDir,
  () => Number(Atomics.add(stats, STAT.nextSegment, 1n)),
  () => Number(Atomics.load(stats, STAT.written) - Atomics.load(stats, STAT.applied)),
  // The end and the counters before the answers: an answer can reach its client (on another
  // thread) at once, and whoever reads the counters then must already see its row written.
  (end) => {
    Atomics.store(stats, STAT.journalEnd, packPosition(end));
    publish();
  },
);

// A thread started again after a crash goes on counting where its predecessor stopped: readers
// compare these counts with the log writer's (awaitLogged, the backlog limit).
journal.counters.written = Number(Atomics.load(stats, STAT.written));
journal.counters.failed = Number(Atomics.load(stats, STAT.failed));

/** Copy the journal's counters where host.stats() reads them. */
function publish(): void {
  Atomics.store(stats, STAT.queueDepth, BigInt(journal.queueDepth));
  Atomics.store(stats, STAT.written, BigInt(journal.counters.written));
  Atomics.store(stats, STAT.failed, BigInt(journal.counters.failed));
  Atomics.store(stats, STAT.busyMicros, BigInt(Math.round(performance.eventLoopUtilization().active * 1000)));
  Atomics.store(stats, STAT.inFlight, BigInt(gateway.requestsInFlight));
}

const sink = {
  write(row: Parameters<LogJournal['write']>[0], done: (ok: boolean) => void) {
    journal.write(row, done);
    Atomics.store(stats, STAT.queueDepth, BigInt(journal.queueDepth));
  },
  // The journal is where an entry is safe: while it takes entries (bounded by MAX_UNAPPLIED_ROWS),
  // requests are answered even when SQLite cannot be written (a full disk); the writer applies
  // them once it can again.
  get writable() {
    return journal.writable;
  },
};

const gateway = new TwinGateway({
  host: data.host,
  domain: data.domain,
  sharedPort: data.sharedPort,
  publicScheme: data.publicScheme,
  tls: data.tls,
  twinLocalSockets: data.twinLocalSockets,
  writer: sink,
  count: (slot, inFlight) => {
    if (slot !== undefined) Atomics.add(stats, STAT.firstSlot + slot, 1n);
    Atomics.store(stats, STAT.inFlight, BigInt(inFlight));
  },
  settled: (inFlight) => Atomics.store(stats, STAT.inFlight, BigInt(inFlight)),
  onError: (msg, err) => report('warn', msg, err),
});

async function handle(msg: ToWorker): Promise<unknown> {
  switch (msg.op) {
    case 'start':
      await gateway.start();
      publish();
      return { sharedPort: gateway.sharedPort };
    case 'open': {
      const twin: GatewayTwin = msg.twin;
      return gateway.open(twin, msg.preferredPort);
    }
    case 'setTarget':
      gateway.setTarget(msg.twinId, msg.address);
      return undefined;
    case 'close':
      await gateway.close(msg.twinId);
      return undefined;
    case 'drain': {
      const unanswered = await gateway.drain(msg.timeoutMs);
      journal.flush();
      publish();
      return { unanswered };
    }
    case 'closeAll':
      await gateway.closeAll();
      journal.close();
      publish();
      return undefined;
  }
}

port.on('message', (msg: ToWorker) => {
  handle(msg).then(
    (value) => {
      if (msg.id !== undefined) port.postMessage({ op: 'reply', id: msg.id, value });
    },
    (err: Error) => {
      if (msg.id !== undefined) port.postMessage({ op: 'reply', id: msg.id, error: err.message });
      else report('error', `gateway ${msg.op} failed`, err);
    },
  );
});

port.postMessage({ op: 'ready' });
