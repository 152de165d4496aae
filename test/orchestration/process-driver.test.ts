import t from 'tap';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from './build.js';
import { waitFor } from './helpers.js';
import { ProcessDriver } from '../../control-plane/orchestration/drivers/process.js';
import type { DriverEvent, TwinWorkloadSpec } from '../../control-plane/orchestration/drivers/driver.js';

t.test('process driver: warm standby starts, crash events, stop with data removal', async (t) => {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'twins-driver-'));
  const driver = new ProcessDriver({ stateDir: join(dir, 'workloads'), warmPerSlug: 1 });
  t.teardown(async () => {
    await driver.close();
    rmSync(dir, { recursive: true, force: true });
  });
  t.equal(await driver.check(), undefined, 'usable once built');
  const spec = (id: string): TwinWorkloadSpec => ({
    twinId: id,
    environmentId: 'env',
    orgId: 'org',
    slug: 'stripe',
    dataFile: join(dir, `${id}.sqlite`),
    clockStart: new Date('2030-01-01T00:00:00Z'),
    adminSecret: `secret-${id}`,
    publicUrl: 'http://127.0.0.1:9',
    labels: { 'twins.twin-id': id },
  });
  const health = async (address: string, secret: string) =>
    (await fetch(address + '/_twin/health', { headers: { 'x-twin-admin-secret': secret } })).json() as Promise<{ clock: string }>;

  const first = await driver.start(spec('a'));
  t.equal((await health(first.address, 'secret-a')).clock, '2030-01-01T00:00:00.000Z', 'clock start passed to the runtime');
  t.equal((await fetch(first.address + '/_twin/health')).status, 401, 'admin API needs the secret');
  await waitFor('a standby child', async () => driver.standbyCount('stripe') === 1);

  const second = await driver.start(spec('b'));
  const pid = driver.pidOf('b')!;
  t.match(readFileSync(`/proc/${pid}/cmdline`, 'utf8'), /--standby/, 'the second start took the warm standby');
  t.equal((await health(second.address, 'secret-b')).clock, '2030-01-01T00:00:00.000Z', 'the standby got its spec over stdin');
  t.equal((await fetch(second.address + '/_twin/health', { headers: { 'x-twin-admin-secret': 'secret-a' } })).status, 401, "another twin's secret is refused");
  t.same(
    (await driver.list({ 'twins.twin-id': 'b' })).map((w) => [w.twinId, w.state]),
    [['b', 'running']],
  );

  const events: DriverEvent[] = [];
  driver.events.on('event', (e: DriverEvent) => events.push(e));
  process.kill(pid, 'SIGKILL');
  await waitFor('exited event', async () => events.some((e) => e.twinId === 'b' && e.kind === 'exited'));
  t.equal((await driver.inspect('b')).state, 'exited');
  t.ok(existsSync(join(dir, 'b.sqlite')), 'data stays after a crash');

  await driver.stop('b', { removeData: true, dataFile: join(dir, 'b.sqlite') });
  t.notOk(existsSync(join(dir, 'b.sqlite')), 'data removed with the twin');
  t.equal((await driver.inspect('b')).state, 'missing');
  await driver.stop('a');
  t.ok(existsSync(join(dir, 'a.sqlite')), 'a plain stop keeps the data');
  t.same(await driver.list({}), []);
});
