// The control-plane image deploy/control-plane.yaml runs, built and run on a real Docker engine:
// it serves, signs a token with its local identity provider, starts a twin with the process driver
// inside the container, proxies the official Stripe SDK to it, logs the calls, and keeps all of it
// across a container restart (the data directory is a volume). Skipped without an engine.

import t from 'tap';
import Docker from 'dockerode';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { buildImage, engineReachable, freePort } from '../helpers/docker.js';
import { waitFor } from '../orchestration/helpers.js';

// A tag of this run's own: checkouts sharing one engine build the same image name concurrently, and
// a run must test the image it built (another checkout's tag replaced this one's mid-run).
const IMAGE = `twins-control-plane:test-${process.pid}`;

/** The local addresses sockets in LISTEN state on `port` are bound to (/proc/net/tcp and tcp6). */
function loopbackListeners(port: number): string[] {
  const out: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== '0A') continue;
      const [hex, portHex] = local.split(':');
      if (Number.parseInt(portHex!, 16) !== port) continue;
      if (hex!.length === 8) out.push(Buffer.from(hex!, 'hex').reverse().join('.'));
      else out.push(hex === '00000000000000000000000001000000' ? '::1' : hex === '0'.repeat(32) ? '::' : hex!);
    }
  }
  return out;
}

// Image builds take minutes on a busy machine (tap's default is 120 s).
t.setTimeout(900_000);
const reachable = await engineReachable();
t.test(
  'control-plane image: serve → token → environment → SDK through the gateway → logs → restart keeps it',
  { skip: reachable ? false : 'no Docker engine reachable on this machine' },
  async (t) => {
    buildImage(IMAGE, 'control-plane');
    t.teardown(() =>
      new Docker()
        .getImage(IMAGE)
        .remove({ force: true })
        .catch(() => undefined),
    );

    // `-v $PWD/data:/data` on a fresh folder: the engine creates it, owned by root. The image hands
    // it to uid 10001 and runs as that user.
    const parent = mkdtempSync(join(tmpdir(), 'twins-cp-image-'));
    t.teardown(() => rmSync(parent, { recursive: true, force: true }));
    const data = join(parent, 'data');
    const port = await freePort();
    const docker = new Docker();
    const name = `twins-cp-test-${process.pid}`;
    const container = await docker.createContainer({
      name,
      Image: IMAGE,
      Cmd: ['serve'],
      Env: [`PORT=${port}`],
      HostConfig: { NetworkMode: 'host', Binds: [`${data}:/data`] },
    });
    t.teardown(() => container.remove({ force: true }).catch(() => undefined));
    await container.start();

    const base = `http://127.0.0.1:${port}`;
    // Deadlines for a loaded 2-core machine (a start measured at 35 s there), not expectations.
    const ready = async () => waitFor('the control plane to be ready', async () => (await fetch(`${base}/health/ready`).catch(() => undefined))?.ok, 120_000);
    await ready();
    t.equal(statSync(join(data, 'control-plane.sqlite')).uid, 10001, 'the fresh data folder is written by uid 10001');
    t.equal(statSync(data).uid, 10001, 'and handed to it');
    // With host networking the control plane's socket is the host's: it must listen on loopback only
    // (read from /proc, without sending anything anywhere else).
    const listening = loopbackListeners(port);
    t.same(listening, ['127.0.0.1'], `port ${port} listens on ${listening.join(', ') || 'nothing'}`);

    // `twins token` inside the container signs with the key the server keeps in /data.
    const exec = await container.exec({
      Cmd: ['node', '/app/bin/twins.js', 'token', '--email', 'ada@example.com', '--org', 'acme', '--role', 'admin'],
      AttachStdout: true,
      AttachStderr: true,
    });
    const stream = await exec.start({ hijack: true, stdin: false });
    const out = await new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      stream.on('error', reject);
    });
    const token = out.match(/eyJ[\w-]+\.[\w-]+\.[\w-]+/)?.[0];
    t.ok(token, 'a token from the container');

    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(base + path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    t.equal((await call('GET', '/users/me')).status, 200);

    const created = await call('POST', '/environments', { name: 'in-image', twins: [{ twin: 'stripe' }] });
    t.equal(created.status, 201);
    const envId = created.body.id as string;
    const env = await waitFor(
      'the environment to be ready',
      async () => {
        const got = await call('GET', `/environments/${envId}`);
        if (got.body.status === 'failed') throw new Error(JSON.stringify(got.body));
        return got.body.status === 'ready' ? got.body : undefined;
      },
      120_000,
    );
    const twin = env.twins[0];
    const url = new URL(twin.url);
    // A twin's key is issued per start, so it is asked for again after the restart.
    const sdk = async () => {
      const key = (await call('POST', `/twins/${twin.id}/credential`)).body.api_key as string;
      return new Stripe(key, { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 });
    };
    const customer = await (await sdk()).customers.create({ email: 'ada@example.com' });
    t.match(customer.id, /^cus_/);

    const logged = await waitFor('the call in the log', async () => {
      const logs = await call('GET', `/environments/${envId}/logs`);
      return logs.body.items?.find((l: any) => l.path === '/v1/customers') ? logs.body : undefined;
    });
    t.ok(logged.items.length >= 1, 'the gateway logged the SDK call');

    await container.restart({ t: 5 });
    await ready();
    await waitFor('the environment ready again', async () => (await call('GET', `/environments/${envId}`)).body.status === 'ready', 120_000);
    const again = await (await sdk()).customers.retrieve(customer.id);
    t.equal((again as Stripe.Customer).email, 'ada@example.com', 'the twin kept its records across the restart');
  },
);
