// `twins token` mints an access token from the local identity provider of a data directory; the
// control plane serving that directory accepts it.

import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestControlPlane } from '../helpers/control-plane.js';

const CLI = join(import.meta.dirname, '../../control-plane/cli.ts');

function twins(args: string[], dataDir: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import=tsx', CLI, ...args], { env: { ...process.env, TWINS_DATA_DIR: dataDir }, encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ status: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

t.test('twins token', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'twins-cli-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

  // Both invocations run at once (each pays the TypeScript loader's start-up).
  const [out, bad] = await Promise.all([
    twins(['token', '--email', 'ada@example.com', '--org', 'acme', '--role', 'admin', '--first-name', 'Ada', '--last-name', 'Lovelace', '--ttl', '600'], dataDir),
    twins(['token', '--email', 'ada@example.com', '--org', 'acme', '--role', 'owner'], dataDir),
  ]);
  t.equal(out.status, 0, out.stderr);
  const token = out.stdout.trim();
  t.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);

  const cp = await startTestControlPlane({ dataDir });
  t.teardown(() => cp.stop());
  const me = await cp.call('GET', '/users/me', { token });
  t.equal(me.status, 200);
  t.match(me.body, { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', role: 'admin' });
  t.equal((await cp.call('GET', '/organizations/current', { token })).body.name, 'acme', 'the org is created on first use, named ORG');

  t.equal(bad.status, 2);
  t.match(bad.stderr, /usage/);
});
