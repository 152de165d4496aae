// Load generators for the isolation benchmarks, each in a process of its own (a client is another
// program): an open loop at a fixed rate (latency from the scheduled instant and from the send)
// and closed-loop listers of a log. Used by tenant-isolation.ts and api-fairness.ts.

import { fork } from 'node:child_process';
import { createRequire } from 'node:module';

/** Open-loop load at a fixed rate: latency from the scheduled instant and from the send. */
export const FIXED_RATE = `
  async function fixedRate({ origin, path, headers, rate, seconds }) {
    const pool = new Pool(origin, { connections: 64 });
    const total = Math.round(rate * seconds);
    const sinceScheduled = [];
    const sinceSent = [];
    let failed = 0;
    let late = 0;
    const statuses = {};
    const t0 = performance.now() + 50;
    const pending = [];
    let next = 0;
    await new Promise((done) => {
      const fire = () => {
        const now = performance.now();
        while (next < total && t0 + (next * 1000) / rate <= now) {
          const scheduled = t0 + (next * 1000) / rate;
          if (now - scheduled > 5) late++;
          next++;
          const sent = performance.now();
          pending.push(pool.request({ path, method: 'GET', headers }).then(async (res) => {
            await res.body.dump();
            const end = performance.now();
            sinceScheduled.push(end - scheduled);
            sinceSent.push(end - sent);
            statuses[res.statusCode] = (statuses[res.statusCode] || 0) + 1;
            if (res.statusCode !== 200) failed++;
          }, () => { failed++; }));
        }
        if (next >= total) return done();
        setTimeout(fire, Math.max(0, t0 + (next * 1000) / rate - performance.now()));
      };
      setTimeout(fire, 50);
    });
    await Promise.all(pending);
    await pool.close();
    return { sinceScheduled, sinceSent, failed, late, total, statuses };
  }
`;

/** Closed-loop listers: each asks for a random page of the big log as soon as the last answered. */
export const LISTER = `
  async function listers({ origin, path, token, listers, pages }, signal) {
    const pool = new Pool(origin, { connections: listers });
    const times = [];
    let failed = 0;
    await Promise.all(Array.from({ length: listers }, async () => {
      while (!signal.stop) {
        const page = 1 + Math.floor(Math.random() * pages);
        const t0 = performance.now();
        try {
          const res = await pool.request({ path: path + '?size=100&page=' + page, method: 'GET', headers: { authorization: 'Bearer ' + token } });
          await res.body.dump();
          if (res.statusCode !== 200) failed++;
          times.push(performance.now() - t0);
        } catch { failed++; }
      }
    }));
    await pool.close();
    return { times, failed };
  }
`;

/**
 * A client is another program: each load generator runs in its own process (sharing the control
 * plane's process — its heap, allocator and V8's helper threads — put the bench's own pauses into
 * A's latency). One process answers every phase, so its connections and compiled code stay warm.
 */
export class ClientProcess {
  private readonly child;
  private next = 1;
  private readonly waiting = new Map<number, (v: any) => void>();
  constructor() {
    const code =
      `const { Pool } = require(${JSON.stringify(createRequire(import.meta.url).resolve('undici'))});\n${FIXED_RATE}\n${LISTER}\n` +
      `let signal = { stop: false };\n` +
      `process.on('message', async (m) => {\n` +
      `  if (m.op === 'stop') { signal.stop = true; return; }\n` +
      `  if (m.op === 'fixed') process.send({ id: m.id, value: await fixedRate(m.args) });\n` +
      `  if (m.op === 'list') { signal = { stop: false }; process.send({ id: m.id, value: await listers(m.args, signal) }); }\n` +
      `});\n`;
    this.child = fork('-', [], { execArgv: ['--input-type=commonjs', '-e', code], stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
    this.child.on('message', (m: { id: number; value: unknown }) => {
      this.waiting.get(m.id)?.(m.value);
      this.waiting.delete(m.id);
    });
  }
  run<T>(op: 'fixed' | 'list', args: unknown): Promise<T> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.send({ op, id, args });
    });
  }
  stop(): void {
    this.child.send({ op: 'stop' });
  }
  close(): void {
    this.child.kill();
  }
}
