// The Kubernetes driver against a fake API server (Pods, Services, PVCs, list, watch). Seeded and
// forked twins: a pretend kubelet runs the Pod's container (the twin runtime, with the Pod's
// arguments and environment) as a local process, which fetches its starting file from the control
// plane's internal start-file route (the real route, on a bare server) with the Pod's token.

import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Fastify from 'fastify';
import Stripe from 'stripe';
import { KubeConfig } from '@kubernetes/client-node';
import { KubernetesDriver, podName } from '../../control-plane/orchestration/drivers/kubernetes.js';
import type { DriverEvent, TwinWorkloadSpec } from '../../control-plane/orchestration/drivers/driver.js';
import { StartFileTokens } from '../../control-plane/orchestration/start-files.js';
import startFileRoutes from '../../control-plane/routes/start-files.js';
import { FakeKubeApiServer } from './fake-kube-apiserver.js';
import { seedFixture } from '../seeds/seed-fixture.js';

function kubeConfigFor(server: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'fake', server, skipTLSVerify: true }],
    users: [{ name: 'fake', token: 'fake-token' }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'fake', namespace: 'twins' }],
    currentContext: 'fake',
  });
  return kc;
}

function spec(twinId: string, extra: Partial<TwinWorkloadSpec> = {}): TwinWorkloadSpec {
  return {
    twinId,
    environmentId: 'env-1',
    orgId: 'org-1',
    slug: 'stripe',
    dataFile: `/data/${twinId}.sqlite`,
    clockStart: new Date('2026-01-01T00:00:00Z'),
    adminSecret: 'admin-secret',
    publicUrl: `https://${twinId}.twins.example.test`,
    labels: { 'twins.environment-id': 'env-1', 'twins.twin-id': twinId, 'twins.org-id': 'org-1' },
    expiresAt: new Date(Date.now() + 3600_000),
    ...extra,
  };
}

function nextEvent(driver: KubernetesDriver, kind: DriverEvent['kind']): Promise<DriverEvent> {
  return new Promise((resolve) => {
    const on = (e: DriverEvent) => {
      if (e.kind === kind) {
        driver.events.off('event', on);
        resolve(e);
      }
    };
    driver.events.on('event', on);
  });
}

t.test('a twin becomes a ready Pod with an owned Service; crashes and deletions are reported', async (t) => {
  const api = new FakeKubeApiServer();
  const url = await api.start();
  t.teardown(() => api.stop());
  const driver = new KubernetesDriver({
    image: 'twins-runtime:1',
    namespace: 'twins',
    dataVolume: 'emptyDir',
    kubeConfig: kubeConfigFor(url),
    startTimeoutMs: 5_000,
  });
  t.teardown(() => driver.close());

  t.equal(await driver.check(), undefined, 'API reachable');
  const id = 'a1b2c3d4-0000-4000-8000-000000000001';
  const { address } = await driver.start(spec(id, { clockMode: 'living', fidelity: 'lenient' }));
  t.equal(address, `http://twin-${id}.twins.svc.cluster.local:8080`);

  const pod: any = api.objects.pods.get(podName(id))!;
  const c = pod.spec.containers[0];
  t.equal(c.image, 'twins-runtime:1');
  t.same(c.args.slice(0, 2), ['--twin', 'stripe']);
  const after = (flag: string) => c.args[c.args.indexOf(flag) + 1];
  t.same(
    [after('--clock'), after('--clock-mode'), after('--fidelity')],
    ['2026-01-01T00:00:00.000Z', 'living', 'lenient'],
    "the environment's clock and fidelity",
  );
  t.equal(c.readinessProbe.httpGet.path, '/_twin/health');
  t.same(c.readinessProbe.httpGet.httpHeaders, [{ name: 'x-twin-admin-secret', value: 'admin-secret' }]);
  t.ok(c.resources.requests.cpu && c.resources.limits.memory, 'requests and limits set');
  t.equal(pod.metadata.labels['twins.environment-id'], 'env-1');
  t.equal(pod.metadata.labels['twins.org-id'], 'org-1');
  t.ok(pod.spec.activeDeadlineSeconds > 3500 && pod.spec.activeDeadlineSeconds <= 3600, 'deadline from the expiry');
  t.same(pod.spec.volumes, [{ name: 'data', emptyDir: {} }]);
  t.equal(pod.spec.securityContext.runAsNonRoot, true);

  const svc: any = api.objects.services.get(podName(id))!;
  t.same(
    svc.metadata.ownerReferences.map((r: { uid: string; kind: string }) => [r.kind, r.uid]),
    [['Pod', pod.metadata.uid]],
  );
  t.same(svc.spec.selector, { 'twins.twin-id': id });

  t.equal((await driver.inspect(id)).state, 'running');
  t.same(
    (await driver.list({ 'twins.environment-id': 'env-1' })).map((w) => w.twinId),
    [id],
  );
  t.same(await driver.list({ 'twins.environment-id': 'other' }), []);

  const exited = nextEvent(driver, 'exited');
  api.crash(podName(id));
  t.equal((await exited).twinId, id, 'a container restart reaches the reconciler');

  const removed = nextEvent(driver, 'removed');
  await fetch(`${url}/api/v1/namespaces/twins/pods/${podName(id)}`, { method: 'DELETE' });
  t.equal((await removed).twinId, id, 'a Pod deleted behind our back is reported');

  await driver.start(spec(id));
  await driver.stop(id);
  t.equal(api.objects.pods.size, 0, 'pod deleted');
  t.equal(api.objects.services.size, 0, 'service cleaned up through its owner reference');
  t.equal((await driver.inspect(id)).state, 'missing');
});

t.test('PVC data volumes', async (t) => {
  const api = new FakeKubeApiServer();
  const url = await api.start();
  t.teardown(() => api.stop());
  const driver = new KubernetesDriver({
    image: 'twins-runtime:1',
    namespace: 'twins',
    dataVolume: 'pvc',
    storageClassName: 'fast',
    kubeConfig: kubeConfigFor(url),
  });
  t.teardown(() => driver.close());
  const id = 'a1b2c3d4-0000-4000-8000-000000000002';
  await driver.start(spec(id));
  const claim = api.objects.persistentvolumeclaims.get(`${podName(id)}-data`)!;
  t.equal(claim.spec.storageClassName, 'fast');
  t.same(api.objects.pods.get(podName(id))!.spec.volumes, [{ name: 'data', persistentVolumeClaim: { claimName: `${podName(id)}-data` } }]);
  await driver.stop(id, { removeData: true });
  t.equal(api.objects.persistentvolumeclaims.size, 0, 'claim removed with the data');
  await t.rejects(
    driver.start(spec('b1', { seedFile: '/seeds/x.sqlite' })),
    /TWINS_INTERNAL_URL/,
    'a seeded twin is refused with a sentence when the Pods cannot be told where the control plane is',
  );
  t.equal(api.objects.pods.size, 0, 'nothing created for the refused twin');
});

interface RunningPod {
  url: string;
  apiKey: string;
  child: ChildProcess;
}

/** The pretend kubelet: the Pod's one container as a local process, its /data volume a directory. */
async function runPod(pod: any, volume: string): Promise<RunningPod> {
  const c = pod.spec.containers[0];
  const args: string[] = c.args.map((a: string) => (a.startsWith('/data/') ? join(volume, a.slice('/data/'.length)) : a));
  args[args.indexOf('--port') + 1] = '0';
  args[args.indexOf('--host') + 1] = '127.0.0.1';
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, TWINS_EGRESS: 'loopback' };
  for (const e of c.env as { name: string; value: string }[]) env[e.name] = e.value;
  const child = spawn(process.execPath, ['dist/twin-runtime/main.js', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => {
      const out = JSON.parse(line) as { url: string; api_key: string };
      resolve({ url: out.url, apiKey: out.api_key, child });
    });
    child.once('exit', (code) => reject(new Error(`the twin exited (${code}): ${stderr}`)));
  });
}

function stop(pod: RunningPod): Promise<void> {
  if (pod.child.exitCode !== null || pod.child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => {
    pod.child.once('exit', () => r());
    pod.child.kill('SIGTERM');
  });
}

function stripeAt(pod: RunningPod): Stripe {
  const u = new URL(pod.url);
  return new Stripe(pod.apiKey, { host: u.hostname, port: Number(u.port), protocol: 'http', maxNetworkRetries: 0 });
}

t.test('seeded and forked twins fetch their starting file from the control plane', async (t) => {
  const fixture = await seedFixture('stripe', t.teardown);
  const seedFile = await fixture.seedFrom('15 customers with 1 charge of $75 each', 'k8s');
  const dir = mkdtempSync(join(tmpdir(), 'k8s-pods-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));

  // The control plane's side: twin rows naming their starting files, the token key, the real route.
  const seededId = 'a1b2c3d4-0000-4000-8000-000000000003';
  const forkedId = 'a1b2c3d4-0000-4000-8000-000000000004';
  const files = new Map<string, string>([[seededId, seedFile]]);
  const startFiles = new StartFileTokens();
  const cp = Fastify();
  cp.decorate('services', {
    orchestration: { startFiles, store: { twinById: (id: string) => (files.has(id) ? { id, seed_file: files.get(id), deleted_at: null } : undefined) } },
  } as never);
  await cp.register(startFileRoutes);
  const cpUrl = await cp.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => cp.close());

  const api = new FakeKubeApiServer();
  const url = await api.start();
  t.teardown(() => api.stop());
  const driver = new KubernetesDriver({
    image: 'twins-runtime:1',
    namespace: 'twins',
    dataVolume: 'emptyDir',
    kubeConfig: kubeConfigFor(url),
    startFiles: { baseUrl: cpUrl, mint: (id) => startFiles.mint(id) },
  });
  t.teardown(() => driver.close());

  await driver.start(spec(seededId, { seedFile }));
  const seededPod: any = api.objects.pods.get(podName(seededId))!;
  const env = Object.fromEntries(seededPod.spec.containers[0].env.map((e: { name: string; value: string }) => [e.name, e.value]));
  t.equal(env.TWIN_START_FILE_URL, `${cpUrl}/internal/twins/${seededId}/start-file`, "the Pod is told its own twin's route");
  t.ok(startFiles.verify(env.TWIN_START_FILE_TOKEN, seededId), 'with a token for this twin');
  t.notOk(startFiles.verify(env.TWIN_START_FILE_TOKEN, forkedId), 'that opens no other twin');
  t.notOk(JSON.stringify(seededPod).includes(seedFile), "the control plane's file path does not reach the Pod");

  const seededVolume = join(dir, 'seeded');
  mkdirSync(seededVolume);
  const seeded = await runPod(seededPod, seededVolume);
  t.teardown(() => stop(seeded));
  const seededStripe = stripeAt(seeded);
  const customers = await seededStripe.customers.list({ limit: 100 });
  t.equal(customers.data.length, 15, 'the seeded twin answers the seed’s 15 customers');

  // A fork: the seeded twin's records after a change, copied by the twin itself (what a snapshot
  // takes), become the starting file of a second twin.
  const added = await seededStripe.customers.create({ name: 'Only in the parent before the fork' });
  const snap = await fetch(`${seeded.url}/_twin/snapshot`, {
    method: 'POST',
    headers: { 'x-twin-admin-secret': 'admin-secret', 'content-type': 'application/json' },
    body: JSON.stringify({ file: 'fork.sqlite' }),
  });
  t.equal(snap.status, 200, await snap.clone().text());
  files.set(forkedId, join(seededVolume, 'fork.sqlite'));
  await driver.start(spec(forkedId, { seedFile: files.get(forkedId) }));
  const forkedVolume = join(dir, 'forked');
  mkdirSync(forkedVolume);
  const forked = await runPod(api.objects.pods.get(podName(forkedId))!, forkedVolume);
  t.teardown(() => stop(forked));
  const forkedStripe = stripeAt(forked);
  const forkedIds = (await forkedStripe.customers.list({ limit: 100 })).data.map((c) => c.id);
  t.equal(forkedIds.length, 16, 'the fork holds the seed and the change before it');
  t.ok(forkedIds.includes(added.id), 'including the customer created before the fork');
  await forkedStripe.customers.del(added.id);
  t.equal((await seededStripe.customers.retrieve(added.id)).deleted, undefined, 'the parent is untouched by the fork');

  // A restarted container keeps its volume: it starts again without fetching (the token may have expired).
  await stop(forked);
  const again = await runPod({ spec: { containers: [{ ...api.objects.pods.get(podName(forkedId))!.spec.containers[0], env: [] }] } }, forkedVolume);
  t.teardown(() => stop(again));
  t.equal((await stripeAt(again).customers.list({ limit: 100 })).data.length, 15, 'the restarted fork keeps its own records');
});
