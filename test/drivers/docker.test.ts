// The Docker driver against a real Docker engine (CI installs Debian's docker.io and starts dockerd).
// Without a reachable engine the suite is skipped, saying so.

import t from 'tap';
import Docker from 'dockerode';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { buildImage, engineReachable } from '../helpers/docker.js';
import { DockerDriver, MANAGED_LABEL } from '../../control-plane/orchestration/drivers/docker.js';
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

// Image builds take minutes on a busy machine (tap's default is 120 s).
t.setTimeout(900_000);
const reachable = await engineReachable();
t.test(
  'docker driver: create → ready → SDK call → kill → back with its records → delete leaves nothing',
  { skip: reachable ? false : 'no Docker engine reachable on this machine' },
  async (t) => {
    buildImage(IMAGE, 'twin-runtime');

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
