// The Docker driver against a real Docker engine (CI installs Debian's docker.io and starts dockerd).
// Without a reachable engine the suite is skipped, saying so.

import t from 'tap';
import Docker from 'dockerode';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { buildImage, engineReachable } from '../helpers/docker.js';
import { DockerDriver, demultiplexLogs, MANAGED_LABEL } from '../../control-plane/orchestration/drivers/docker.js';
import { startControlPlaneProcess, type ControlPlaneProcess } from '../helpers/control-plane-process.js';
import type { DriverEvent, TwinWorkloadSpec } from '../../control-plane/orchestration/drivers/driver.js';

const IMAGE = 'twins-runtime:test';

function stripeAt(address: string, key: string): Stripe {
  const url = new URL(address);
  return new Stripe(key, { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 });
}

async function credential(address: string, secret: string): Promise<string> {
  const res = await fetch(`${address}/_twin/credential`, { headers: { 'x-twin-admin-secret': secret } });
  return ((await res.json()) as { api_key: string }).api_key;
}

t.test("a container's log is read frame by frame (the engine multiplexes stdout and stderr without a TTY)", async (t) => {
  const frame = (stream: number, text: string) => {
    const payload = Buffer.from(text);
    const header = Buffer.alloc(8);
    header[0] = stream;
    header.writeUInt32BE(payload.length, 4);
    return Buffer.concat([header, payload]);
  };
  const raw = Buffer.concat([frame(1, 'listening\n'), frame(2, 'Error: SQLITE_CANTOPEN: unable to open database file\n')]);
  t.equal(demultiplexLogs(raw), 'listening\nError: SQLITE_CANTOPEN: unable to open database file\n');
  t.notOk(
    [...demultiplexLogs(raw)].some((c) => c.charCodeAt(0) < 9),
    'no header bytes in the text',
  );
  t.equal(demultiplexLogs(Buffer.from('plain log of a TTY container\n')), 'plain log of a TTY container\n', 'a raw log stays as it is');
  t.equal(
    demultiplexLogs(Buffer.concat([frame(1, 'cut'), Buffer.from([1, 0, 0])])),
    Buffer.concat([frame(1, 'cut'), Buffer.from([1, 0, 0])]).toString('utf8'),
    'a torn frame: the raw text',
  );
});

// Image builds take minutes on a busy machine (tap's default is 120 s); the file builds it once.
t.setTimeout(1_800_000);
const reachable = await engineReachable();
let imageBuilt = false;
const ensureImage = () => {
  if (!imageBuilt) buildImage(IMAGE, 'twin-runtime');
  imageBuilt = true;
};
t.test(
  'docker driver: create → ready → SDK call → kill → back with its records → delete leaves nothing',
  { skip: reachable ? false : 'no Docker engine reachable on this machine' },
  async (t) => {
    ensureImage();

    const driver = new DockerDriver({ image: IMAGE, startTimeoutMs: 30_000, stopGraceSeconds: 1 });
    t.teardown(() => driver.close());
    t.equal(await driver.check(), undefined, 'engine and image are usable');

    const dir = mkdtempSync(join(tmpdir(), 'twins-docker-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const twinId = `test-${process.pid}-${Date.now()}`;
    const spec: TwinWorkloadSpec = {
      twinId,
      environmentId: 'env-docker-test',
      orgId: 'org-docker-test',
      slug: 'stripe',
      dataFile: join(dir, twinId, 'stripe.sqlite'),
      clockStart: new Date('2026-01-01T00:00:00Z'),
      clockMode: 'frozen',
      fidelity: 'lenient',
      adminSecret: 'secret-' + twinId,
      publicUrl: 'http://127.0.0.1:1',
      labels: { 'twins.environment-id': 'env-docker-test', 'twins.twin-id': twinId, 'twins.org-id': 'org-docker-test' },
    };
    t.teardown(() => driver.stop(twinId, { removeData: true, dataFile: spec.dataFile }));

    const { address } = await driver.start(spec);
    t.match(address, /^http:\/\/127\.0\.0\.1:\d+$/);
    t.equal((await driver.inspect(twinId)).state, 'running');
    const health = await (await fetch(`${address}/_twin/health`, { headers: { 'x-twin-admin-secret': spec.adminSecret } })).json();
    t.match(
      health,
      { clock: '2026-01-01T00:00:00.000Z', clock_mode: 'frozen', fidelity: 'lenient' },
      "the environment's clock and fidelity reach the container",
    );
    const firstKey = await credential(address, spec.adminSecret);
    t.match(firstKey, /^sk_test_/);
    const customer = await stripeAt(address, firstKey).customers.create({ email: 'ana@example.com', name: 'Ana Lima' });
    t.match(customer.id, /^cus_/);
    t.ok(existsSync(spec.dataFile), 'the data file lives on the bind-mounted directory');

    // Kill the container the hard way: the engine's event stream reports the crash.
    const exited = new Promise<DriverEvent>((resolve) => {
      const onEvent = (e: DriverEvent) => {
        if (e.twinId === twinId && e.kind === 'exited') {
          driver.events.off('event', onEvent);
          resolve(e);
        }
      };
      driver.events.on('event', onEvent);
    });
    await new Docker().getContainer(`twins-${twinId}`).kill();
    const event = await exited;
    t.equal(event.kind, 'exited', 'the crash arrives as an exited event');
    t.equal((await driver.inspect(twinId)).state, 'exited');

    const again = await driver.start(spec);
    const secondKey = await credential(again.address, spec.adminSecret);
    t.not(secondKey, firstKey, 'a restarted container mints a new key');
    const back = await stripeAt(again.address, secondKey).customers.retrieve(customer.id);
    t.equal((back as Stripe.Customer).email, 'ana@example.com', 'records survive the crash');
    const refused = await stripeAt(again.address, firstKey)
      .customers.retrieve(customer.id)
      .then(
        () => undefined,
        (e: { statusCode?: number }) => e,
      );
    t.equal(refused?.statusCode, 401, 'the old key is refused');

    const listed = await driver.list({ 'twins.environment-id': 'env-docker-test' });
    t.same(
      listed.map((w) => w.twinId),
      [twinId],
      'found by label',
    );

    await driver.stop(twinId, { removeData: true, dataFile: spec.dataFile });
    const left = await new Docker().listContainers({ all: true, filters: { label: [`${MANAGED_LABEL}=true`, `twins.twin-id=${twinId}`] } });
    t.equal(left.length, 0, 'no container left behind');
    t.notOk(existsSync(spec.dataFile), 'data removed');
    t.equal((await driver.inspect(twinId)).state, 'missing');
  },
);

async function untilReady(cp: ControlPlaneProcess, environmentId: string): Promise<any> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const env = (await cp.call('GET', `/environments/${environmentId}`)).body;
    if (env.status === 'ready' || Date.now() > deadline) return env;
    await new Promise((r) => setTimeout(r, 250));
  }
}

t.test(
  'make dev data under TWINS_DRIVER=docker: the twins come back with their records, and Ctrl-C leaves no container running',
  { skip: reachable ? false : 'no Docker engine reachable on this machine' },
  async (t) => {
    ensureImage();
    const dataDir = mkdtempSync(join(tmpdir(), 'twins-switch-'));
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

    // The process driver writes the twin's file as the control plane's user, mode 0600.
    const first = await startControlPlaneProcess(dataDir);
    t.teardown(() => void first.child.kill('SIGKILL'));
    const created = await first.call('POST', '/environments', { name: 'switch', twins: [{ twin: 'stripe' }] });
    t.equal(created.status, 201);
    let env = await untilReady(first, created.body.id);
    t.equal(env.status, 'ready', 'ready under the process driver');
    const twin = env.twins[0];
    const key = (await first.call('POST', `/twins/${twin.id}/credential`)).body.api_key as string;
    const customer = await stripeAt(twin.url, key).customers.create({ email: 'switch@example.com' });
    first.child.kill('SIGTERM');
    await first.exited;

    const second = await startControlPlaneProcess(dataDir, { TWINS_DRIVER: 'docker', TWINS_IMAGE: IMAGE });
    t.teardown(() => void second.child.kill('SIGKILL'));
    env = await untilReady(second, created.body.id);
    t.equal(env.status, 'ready', `ready under the Docker driver (${env.twins[0]?.failure ?? 'no failure'})`);
    const again = env.twins[0];
    const listed = await new Docker().listContainers({ filters: { label: [`${MANAGED_LABEL}=true`, `twins.environment-id=${created.body.id}`] } });
    t.equal(listed.length, 1, 'the twin runs in a container');
    const newKey = (await second.call('POST', `/twins/${again.id}/credential`)).body.api_key as string;
    const back = (await stripeAt(again.url, newKey).customers.retrieve(customer.id)) as Stripe.Customer;
    t.equal(back.email, 'switch@example.com', 'the record written under the process driver is read in the container');

    second.child.kill('SIGINT');
    t.equal((await second.exited).code, 0, 'Ctrl-C ends the control plane cleanly');
    const left = await new Docker().listContainers({ all: true, filters: { label: [`${MANAGED_LABEL}=true`, `twins.environment-id=${created.body.id}`] } });
    t.equal(left.length, 0, 'no twin container left, running or stopped');
  },
);
