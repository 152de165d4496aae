// The cluster manifests parse, and agree with what the control plane and the driver need.

import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAllYaml } from '@kubernetes/client-node';

const docs = loadAllYaml(readFileSync(join(import.meta.dirname, '..', '..', 'deploy', 'control-plane.yaml'), 'utf8')) as any[];
const byKind = (kind: string) => docs.filter((d) => d?.kind === kind);

t.test('every document is a named Kubernetes object in the twins namespace', async (t) => {
  t.ok(docs.length >= 8);
  for (const d of docs) {
    t.ok(d.apiVersion && d.kind && d.metadata?.name, `${d.kind}/${d.metadata?.name} has apiVersion, kind, name`);
    if (d.kind !== 'Namespace') t.equal(d.metadata.namespace, 'twins', `${d.kind}/${d.metadata.name} is namespaced`);
  }
});

t.test('RBAC covers every call the kubernetes driver makes', async (t) => {
  const [role] = byKind('Role');
  const rule = role.rules.find((r: any) => r.resources.includes('pods'));
  for (const res of ['pods', 'services', 'persistentvolumeclaims']) t.ok(rule.resources.includes(res), res);
  for (const verb of ['get', 'list', 'watch', 'create', 'delete']) t.ok(rule.verbs.includes(verb), verb);
  const [binding] = byKind('RoleBinding');
  t.equal(binding.roleRef.name, role.metadata.name);
  const [deployment] = byKind('Deployment');
  t.equal(deployment.spec.template.spec.serviceAccountName, binding.subjects[0].name);
});

t.test('the deployment runs the kubernetes driver with probes on the health routes', async (t) => {
  const [deployment] = byKind('Deployment');
  const [config] = byKind('ConfigMap');
  const c = deployment.spec.template.spec.containers[0];
  t.equal(config.data.TWINS_DRIVER, 'kubernetes');
  t.equal(config.data.TWINS_NAMESPACE, 'twins');
  t.ok(config.data.TWINS_DOMAIN, 'host routing domain set');
  t.equal(config.data.TWINS_DEFAULT_PLAN, 'free', 'hosted organizations start on free (the embedded local setup: paygo)');
  t.same(c.envFrom, [{ configMapRef: { name: config.metadata.name } }]);
  t.equal(c.readinessProbe.httpGet.path, '/health/ready');
  t.equal(c.livenessProbe.httpGet.path, '/health/live');
  const http = c.ports.find((p: any) => p.name === 'http');
  t.equal(String(http.containerPort), config.data.PORT);
  const svc = byKind('Service').find((s) => s.metadata.name === 'twins-control-plane');
  t.equal(svc.spec.ports[0].targetPort, http.containerPort);
  t.same(svc.spec.selector, deployment.spec.selector.matchLabels);
  const claim = byKind('PersistentVolumeClaim')[0];
  t.equal(deployment.spec.template.spec.volumes[0].persistentVolumeClaim.claimName, claim.metadata.name);
  t.equal(c.volumeMounts[0].mountPath, config.data.TWINS_DATA_DIR);
});

t.test('twin Pods reach the control plane for their starting file, and only it on a private address', async (t) => {
  const [config] = byKind('ConfigMap');
  const [deployment] = byKind('Deployment');
  const svc = byKind('Service').find((s) => s.metadata.name === 'twins-control-plane');
  const internal = new URL(config.data.TWINS_INTERNAL_URL);
  t.equal(internal.hostname, `${svc.metadata.name}.${svc.metadata.namespace}.svc.cluster.local`, "TWINS_INTERNAL_URL names the control plane's Service");
  t.equal(Number(internal.port || 80), svc.spec.ports[0].port);
  const policy = byKind('NetworkPolicy').find((p) => p.metadata.name === 'twins-twin-pods');
  const toControlPlane = policy.spec.egress.filter((r: any) =>
    r.to.some((to: any) => to.podSelector?.matchLabels?.['app.kubernetes.io/name'] === deployment.spec.selector.matchLabels['app.kubernetes.io/name']),
  );
  t.equal(toControlPlane.length, 1, 'one egress rule to the control plane Pods');
  t.same(toControlPlane[0].ports, [{ protocol: 'TCP', port: svc.spec.ports[0].targetPort }], 'on its HTTP port only');
});
