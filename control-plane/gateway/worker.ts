// The gateway's thread: every twin listener, the proxying, and the request log writer (the only
// connection that writes request-logs.sqlite). host.ts starts it and drives it with messages; no
// API request ever runs here, so none can block a proxied request.

import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { openLogDatabase, RequestLogStore } from '../store/request-logs.js';
import { RequestLogWriter } from './request-log-writer.js';
import { TwinGateway, type GatewayTwin } from './gateway.js';
import { STAT, type GatewayWorkerData, type ToWorker } from './protocol.js';

const data = workerData as GatewayWorkerData;
const port = parentPort!;
const stats = new BigInt64Array(data.stats);

function report(level: 'error' | 'warn', msg: string, err?: unknown): void {
  port.postMessage({ op: 'log', level, msg, err: err instanceof Error ? `${err.name}: ${err.message}` : err === undefined ? undefined : String(err) });
}

const db = openLogDatabase(data.logFile);
// Checkpoints run on the checkpointer's thread (checkpoint-worker.ts): their fsyncs never delay a commit here.
db.pragma('wal_autocheckpoint = 0');
db.pragma('journal_size_limit = 67108864');
const store = new RequestLogStore(db);
const writer = new RequestLogWriter(store, {
  defaultRetentionDays: data.defaultRetentionDays,
  bodyCapBytes: data.bodyCapBytes,
  onError: (msg, err) => report('error', msg, err),
  onCommit: () => publish(),
});

/** Copy the writer's counters where host.stats() reads them. */
function publish(): void {
  const s = writer.stats();
  Atomics.store(stats, STAT.queueDepth, BigInt(s.queueDepth));
  Atomics.store(stats, STAT.written, BigInt(s.written));
  Atomics.store(stats, STAT.failed, BigInt(s.failed));
  Atomics.store(stats, STAT.expired, BigInt(s.expired));
  Atomics.store(stats, STAT.purged, BigInt(s.purged));
  Atomics.store(stats, STAT.bodiesDropped, BigInt(s.bodiesDropped));
  Atomics.store(stats, STAT.writable, s.writable ? 1n : 0n);
  Atomics.store(stats, STAT.commits, BigInt(s.commits));
  Atomics.store(stats, STAT.commitMicros, BigInt(s.commitMicros));
  Atomics.store(stats, STAT.busyMicros, BigInt(Math.round(performance.eventLoopUtilization().active * 1000)));
  Atomics.store(stats, STAT.inFlight, BigInt(gateway.requestsInFlight));
}

const sink = {
  write(row: Parameters<RequestLogWriter['write']>[0], done: (ok: boolean) => void) {
    writer.write(row, done);
    Atomics.store(stats, STAT.queueDepth, BigInt(writer.queueDepth));
  },
  get writable() {
    return writer.writable;
  },
};

const gateway = new TwinGateway({
  host: data.host,
  domain: data.domain,
  sharedPort: data.sharedPort,
  publicScheme: data.publicScheme,
  tls: data.tls,
  writer: sink,
  count: (slot, inFlight) => {
    if (slot !== undefined) Atomics.add(stats, STAT.firstSlot + slot, 1n);
    Atomics.store(stats, STAT.inFlight, BigInt(inFlight));
  },
  onError: (msg, err) => report('warn', msg, err),
});

async function handle(msg: ToWorker): Promise<unknown> {
  switch (msg.op) {
    case 'start':
      await gateway.start();
      writer.startMaintenance();
      publish();
      return { sharedPort: gateway.sharedPort };
    case 'open': {
      const twin: GatewayTwin = msg.twin;
      store.setRetention(twin.environmentId, twin.organizationId, msg.retentionDays ?? null);
      return gateway.open(twin, msg.preferredPort);
    }
    case 'setTarget':
      gateway.setTarget(msg.twinId, msg.address);
      return undefined;
    case 'close':
      await gateway.close(msg.twinId);
      return undefined;
    case 'purge':
      store.markDeleted(msg.environmentId);
      return undefined;
    case 'retention':
      for (const e of msg.entries) store.setRetention(e.environmentId, e.organizationId, e.days);
      return undefined;
    case 'maintain':
      writer.maintain(msg.now ? new Date(msg.now) : undefined);
      publish();
      return undefined;
    case 'drain': {
      const unanswered = await gateway.drain(msg.timeoutMs);
      writer.commit();
      publish();
      return { unanswered };
    }
    case 'closeAll':
      await gateway.closeAll();
      writer.close();
      publish();
      db.close();
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
