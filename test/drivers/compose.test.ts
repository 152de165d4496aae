// compose.yaml, run as Compose would run it (the service's image, command, user, network, environment
// and mounts, given to the engine through dockerode: the Compose CLI is not needed): the control plane
// in a container drives twins as sibling containers with the Docker driver; a token is minted inside
// it, an environment with Stripe starts, the official SDK calls the twin, the request log shows it.
// Skipped, saying why, without a Docker engine.

import t from 'tap';
import Docker from 'dockerode';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import Stripe from 'stripe';
import { buildImage, engineReachable, freePort } from '../helpers/docker.js';
import { waitFor } from '../orchestration/helpers.js';
import { MANAGED_LABEL } from '../../control-plane/orchestration/drivers/docker.js';

const ROOT = join(import.meta.dirname, '../..');
const TAG = 'compose-test';
// Image builds and containers: minutes on a loaded machine.
t.setTimeout(900_000);
const reachable = await engineReachable();

/** Compose's `${NAME}` and `${NAME:-default}` (defaults may nest), from `vars`. */
function interpolate(text: string, vars: Record<string, string | undefined>): string {
  let out = text;
  for (let i = 0; i < 10 && /\$\{[^${}]+\}/.test(out); i++) {
    out = out.replace(/\$\{([A-Z_][A-Z0-9_]*)(?::-([^${}]*))?\}/g, (_m, name: string, fallback?: string) => vars[name] || fallback || '');
  }
  return out;
}

t.test('compose.yaml describes a control plane that drives Docker twins', async (t) => {
  const data = mkdtempSync(join(tmpdir(), 'twins-compose-'));
  t.teardown(() => rmSync(data, { recursive: true, force: true }));
  const file = parse(interpolate(readFileSync(join(ROOT, 'compose.yaml'), 'utf8'), { TWINS_TAG: TAG, TWINS_COMPOSE_DATA: data, PWD: ROOT }));
  const service = file.services['control-plane'];
  t.equal(service.image, `twins-control-plane:${TAG}`);
  t.equal(service.network_mode, 'host');
  t.match(service.environment, { TWINS_DRIVER: 'docker', TWINS_IMAGE: `twins-runtime:${TAG}`, TWINS_DATA_DIR: data });
  t.same(
    service.volumes[1],
    { type: 'bind', source: data, target: data, bind: { create_host_path: true } },
    'the data folder has the same path inside and out',
  );
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Compose's own interpolation syntax under test
  t.equal(interpolate('${TWINS_COMPOSE_DATA:-${PWD}/.data-compose}', { PWD: '/src' }), '/src/.data-compose');
  t.equal(file.name, 'twins', 'the project name by default');
  t.equal(service.environment.PORT, '8080', 'port 8080 by default');
  t.equal(service.environment.TWINS_USER, '', 'stays root for the engine socket');
  const chosen = parse(interpolate(readFileSync(join(ROOT, 'compose.yaml'), 'utf8'), { TWINS_PORT: '18080', TWINS_COMPOSE_PROJECT: 'twins-b', PWD: ROOT }));
  t.equal(chosen.name, 'twins-b', 'TWINS_COMPOSE_PROJECT names the project');
  t.equal(chosen.services['control-plane'].environment.PORT, '18080', 'TWINS_PORT chooses the port');

  t.test('run on a real engine', { skip: reachable ? false : 'no Docker engine reachable on this machine' }, async (t) => {
    buildImage(`twins-runtime:${TAG}`, 'twin-runtime');
    buildImage(`twins-control-plane:${TAG}`, 'control-plane');
    // Everything as the file says, but a free port (tests never take a fixed one).
    const port = await freePort();
    const env = { ...service.environment, PORT: String(port) } as Record<string, string>;
    const binds = (service.volumes as (string | { source: string; target: string })[]).map((v) => (typeof v === 'string' ? v : `${v.source}:${v.target}`));
    const docker = new Docker();
    const container = await docker.createContainer({
      name: `twins-compose-test-${process.pid}`,
      Image: service.image,
      Cmd: service.command,
      User: service.user,
      Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
      HostConfig: { NetworkMode: service.network_mode, Binds: binds },
    });
    let environmentId: string | undefined;
    t.teardown(async () => {
      await container.remove({ force: true }).catch(() => {});
      // Twin containers the control plane left behind if the test stopped half-way.
      if (!environmentId) return;
      const left = await docker.listContainers({ all: true, filters: { label: [`${MANAGED_LABEL}=true`, `twins.environment-id=${environmentId}`] } });
      for (const c of left)
        await docker
          .getContainer(c.Id)
          .remove({ force: true })
          .catch(() => {});
    });
    await container.start();
    const url = `http://127.0.0.1:${port}`;
    await waitFor('control plane ready', async () => (await fetch(`${url}/health/ready`).catch(() => undefined))?.ok, 120_000);

    // `twins token` inside the container, from the same data directory.
    const exec = await container.exec({
      Cmd: ['node', '/app/bin/twins.js', 'token', '--email', 'ada@example.com', '--org', 'compose', '--role', 'admin'],
      AttachStdout: true,
      AttachStderr: true,
    });
    const stream = await exec.start({});
    const chunks: Buffer[] = [];
    await new Promise<void>((resolve) => stream.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve()));
    const token = /([\w-]+\.[\w-]+\.[\w-]+)/.exec(Buffer.concat(chunks).toString('latin1'))?.[1];
    t.ok(token, 'a token from inside the container');
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(url + path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: res.status === 204 ? undefined : ((await res.json()) as any) };
    };
    const created = await call('POST', '/environments', { name: 'compose', twins: [{ twin: 'stripe' }] });
    t.equal(created.status, 201);
    environmentId = created.body.id;
    const ready = await waitFor(
      'twin ready',
      async () => {
        const e = await call('GET', `/environments/${created.body.id}`);
        return e.body.status === 'ready' && e.body;
      },
      120_000,
    );
    const twin = ready.twins[0];
    const twinContainers = await docker.listContainers({ filters: { label: [`twins.twin-id=${twin.id}`] } });
    t.equal(twinContainers.length, 1, 'the twin runs as a sibling container');
    const key = (await call('POST', `/twins/${twin.id}/credential`)).body.api_key;
    const u = new URL(twin.url);
    const customer = await new Stripe(key, { host: u.hostname, port: Number(u.port), protocol: 'http', maxNetworkRetries: 0 }).customers.create({
      email: 'compose@example.com',
    });
    t.match(customer.id, /^cus_/);
    const logs = await waitFor('logged', async () => {
      const l = await call('GET', `/environments/${created.body.id}/logs`);
      return l.body.total === 1 && l.body;
    });
    t.match(logs.items[0], { method: 'POST', path: '/v1/customers', status_code: 200 });
    t.equal((await call('DELETE', `/environments/${created.body.id}`)).status, 204);
    t.same(
      await docker.listContainers({ all: true, filters: { label: [`twins.twin-id=${twin.id}`] } }),
      [],
      'deleting the environment removes the twin container',
    );
  });
});
