// The internal start-file route (issue 38 item 6) on a whole control plane: a forked twin's token
// opens its own snapshot file and nothing else. A wrong, missing or expired token, or the token of
// another twin, gets the same 401; a twin that starts empty has no file (404).

import t from 'tap';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { startOrchestratedControlPlane, stripe, waitReady } from './helpers.js';
import { StartFileTokens, startFilePath } from '../../control-plane/orchestration/start-files.js';

t.test('the start-file route answers only the twin its token was minted for', async (t) => {
  const cp = await startOrchestratedControlPlane();
  t.teardown(() => cp.stop());
  const token = await cp.token({ email: 'ada@start.example.com', org: 'start', role: 'admin' });
  await cp.call('GET', '/environments', { token });
  cp.services.db.prepare("UPDATE organizations SET plan = 'paygo' WHERE external_id = 'start'").run();

  const created = await cp.call('POST', '/environments', { token, body: { name: 'parent', twins: [{ twin: 'stripe' }] } });
  t.equal(created.status, 201, JSON.stringify(created.body));
  const parent = await waitReady(cp, token, created.body.id);
  const forks = [];
  for (const name of ['one', 'two']) {
    const fork = await cp.call('POST', `/environments/${parent.id}/fork`, { token, body: { name } });
    t.equal(fork.status, 201, JSON.stringify(fork.body));
    forks.push(fork.body);
  }
  const [a, b] = forks.map((f) => f.twins[0].id as string) as [string, string];
  const parentTwin = parent.twins[0].id as string;
  const tokens = cp.services.orchestration.startFiles;
  const get = (twinId: string, bearer?: string) =>
    fetch(cp.url + startFilePath(twinId), { headers: bearer === undefined ? {} : { authorization: `Bearer ${bearer}` } });

  const ok = await get(a, tokens.mint(a));
  t.equal(ok.status, 200);
  t.equal(ok.headers.get('content-type'), 'application/vnd.sqlite3');
  const body = Buffer.from(await ok.arrayBuffer());
  const file = cp.services.orchestration.store.twinById(a)!.seed_file!;
  t.ok(body.length > 0, 'a file was sent');
  t.ok(body.equals(readFileSync(file)), "the twin's own snapshot file, byte for byte");

  const refusals: [string, Response][] = [
    ['no token', await get(a)],
    ['a wrong token', await get(a, `${Date.now() + 60_000}.${'A'.repeat(43)}`)],
    ['not a token', await get(a, 'x'.repeat(5000))],
    ['an expired token', await get(a, tokens.mint(a, Date.now() - 60 * 60_000))],
    ["another twin's token for this twin's file", await get(a, tokens.mint(b))],
    ["this twin's token for another twin's file", await get(b, tokens.mint(a))],
    ['a token from another control plane', await get(a, new StartFileTokens().mint(a))],
    ['a token for an unknown twin', await get('00000000-0000-4000-8000-000000000000', tokens.mint(a))],
  ];
  for (const [what, res] of refusals) {
    t.equal(res.status, 401, what);
    const text = await res.text();
    t.notOk(text.includes('SQLite'), `${what}: no file content`);
  }
  const empty = await get(parentTwin, tokens.mint(parentTwin));
  t.equal(empty.status, 404, 'a twin that started empty has no starting file');
  t.match((await empty.json()).detail, /starts empty/);

  // Under the kubernetes driver the twin's directory is in its Pod: a snapshot fetches each twin's
  // copy over the admin API (here the process driver's twins, fetched as a Pod's would be).
  (cp.services.orchestration.snapshots as unknown as { o: { driverName: string } }).o.driverName = 'kubernetes';
  const admin = cp.services.orchestration.admin;
  const downloaded: string[] = [];
  const download = admin.download.bind(admin);
  admin.download = (address, secret, path, dest, timeoutMs) => {
    downloaded.push(path);
    return download(address, secret, path, dest, timeoutMs);
  };
  const snap = await cp.call('POST', `/environments/${parent.id}/snapshots`, { token, body: { name: 'from a pod' } });
  t.equal(snap.status, 201, JSON.stringify(snap.body));
  const row = cp.services.orchestration.store.twinById(parentTwin)!;
  t.same(downloaded, [`/_twin/snapshot/snapshot-${snap.body.id}-${parentTwin}.sqlite`], "the copy came over the twin's admin API");
  const copied = readFileSync(`${cp.services.config.dataDir}/snapshots/${snap.body.id}/${parentTwin}.sqlite`);
  t.equal(copied.length, snap.body.twins[0].size_bytes, 'the whole copy arrived');
  t.equal(copied.subarray(0, 15).toString('latin1'), 'SQLite format 3');
  t.same(
    readdirSync(dirname(row.data_file)).filter((f) => f.startsWith(`snapshot-${snap.body.id}`)),
    [],
    'the twin dropped its copy once fetched',
  );
  const served = (name: string) =>
    fetch(`${row.address}/_twin/snapshot/${encodeURIComponent(name)}`, { headers: { 'x-twin-admin-secret': row.admin_secret! } });
  t.equal((await served(basename(row.data_file))).status, 404, "the twin's data file is never served as a snapshot");
  t.equal((await served(`snapshot-${snap.body.id}-${parentTwin}.sqlite`)).status, 404, 'nor a dropped copy');
  t.ok(existsSync(row.data_file), 'the data file stays');
  const adminCall = (method: string, path: string, body?: unknown) =>
    fetch(`${row.address}/_twin/${path}`, {
      method,
      headers: { 'x-twin-admin-secret': row.admin_secret!, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  t.equal((await adminCall('POST', 'snapshot', { file: 'probe.sqlite' })).status, 200);
  const probe = await served('probe.sqlite');
  t.equal(probe.status, 200, 'a copy the twin wrote is served');
  t.equal(
    Buffer.from(await probe.arrayBuffer())
      .subarray(0, 15)
      .toString('latin1'),
    'SQLite format 3',
  );
  t.equal((await adminCall('DELETE', 'snapshot/probe.sqlite')).status, 204);
  t.equal((await served('probe.sqlite')).status, 404, 'and no longer once dropped');
  t.notOk(existsSync(`${dirname(row.data_file)}/probe.sqlite`), 'the file is gone');
  const wrongSecret = await fetch(`${row.address}/_twin/snapshot/probe.sqlite`, { headers: { 'x-twin-admin-secret': 'wrong' } });
  t.equal(wrongSecret.status, 401, 'nothing without the admin secret');
  const started = await cp.call('POST', '/environments', { token, body: { name: 'from the pod snapshot', snapshot_id: snap.body.id } });
  t.equal(started.status, 201, JSON.stringify(started.body));

  // A live diff reads each twin's records as they stand: fetched the same way, then removed.
  const key = (await cp.call('POST', `/twins/${parentTwin}/credential`, { token })).body.api_key;
  const added = await stripe(parent.twins[0].url, key, 'POST', '/v1/customers', { name: 'After the snapshot' });
  t.equal(added.status, 200);
  downloaded.length = 0;
  const diff = await cp.call('GET', `/environments/${parent.id}/diff?snapshot_id=${snap.body.id}`, { token });
  t.equal(diff.status, 200, JSON.stringify(diff.body));
  t.equal(downloaded.length, 1, "the twin's records now came over its admin API");
  const customers = diff.body.twins[0].added.filter((r: { resource: string }) => r.resource === 'customer');
  t.same(
    customers.map((r: { external_id: string }) => r.external_id),
    [added.body.id],
    'the customer created since the snapshot',
  );
  t.same(readdirSync(`${cp.services.config.dataDir}/diffs`), [], 'the fetched copy is removed after the diff');
  t.same(
    readdirSync(dirname(row.data_file)).filter((f) => f.startsWith('diff-')),
    [],
    'and the twin dropped its own',
  );
});
