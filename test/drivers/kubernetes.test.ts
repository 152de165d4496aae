// The Kubernetes driver against a fake API server (Pods, Services, PVCs, list, watch).

import t from 'tap';
import { KubeConfig } from '@kubernetes/client-node';
import { KubernetesDriver, podName } from '../../control-plane/orchestration/drivers/kubernetes.js';
import type { DriverEvent, TwinWorkloadSpec } from '../../control-plane/orchestration/drivers/driver.js';
import { FakeKubeApiServer } from './fake-kube-apiserver.js';

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

t.test('PVC data volumes and refusing seeded twins', async (t) => {
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
  await t.rejects(driver.start(spec('b1', { seedFile: '/seeds/x.sqlite' })), /Seeded twins cannot start/);
});
