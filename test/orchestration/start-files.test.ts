// The internal start-file route (issue 38 item 6) on a whole control plane: a forked twin's token
// opens its own snapshot file and nothing else. A wrong, missing or expired token, or the token of
// another twin, gets the same 401; a twin that starts empty has no file (404).

import t from 'tap';
import { readFileSync } from 'node:fs';
import { startOrchestratedControlPlane, waitReady } from './helpers.js';
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
});
