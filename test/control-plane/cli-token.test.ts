// `twins token` mints an access token from the local identity provider of a server's data
// directory; the control plane serving that directory accepts it. A directory no control plane
// has used is refused (exit 1, with the reason), since nothing would accept what it signed.

import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestControlPlane } from '../helpers/control-plane.js';
import { cliProcess } from '../cli/helpers.js';

t.test('twins token', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'twins-cli-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const args = ['token', '--email', 'ada@example.com', '--org', 'acme', '--role', 'admin', '--first-name', 'Ada', '--last-name', 'Lovelace', '--ttl', '600'];

  const [refused, bad] = await Promise.all([
    cliProcess(args, { TWINS_DATA_DIR: dataDir }),
    cliProcess(['token', '--email', 'ada@example.com', '--org', 'acme', '--role', 'owner'], { TWINS_DATA_DIR: dataDir }),
  ]);
  t.equal(refused.code, 1, 'no control plane has used the directory');
  t.match(refused.stderr, /^twins token: No control plane uses the data directory .*: start one there first/);
  t.equal(refused.stdout, '');
  t.equal(bad.code, 2);
  t.match(bad.stderr, /^twins token: --role must be one of admin, member \(got 'owner'\)\nRun 'twins token --help' for usage\.\n$/);

  const cp = await startTestControlPlane({ dataDir });
  t.teardown(() => cp.stop());
  const out = await cliProcess(args, { TWINS_DATA_DIR: dataDir });
  t.equal(out.code, 0, out.stderr);
  const token = out.stdout.trim();
  t.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
  const me = await cp.call('GET', '/users/me', { token });
  t.equal(me.status, 200);
  t.match(me.body, { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', role: 'admin' });
  t.equal((await cp.call('GET', '/organizations/current', { token })).body.name, 'acme', 'the org is created on first use, named ORG');
});
