// The `twins` process itself: exit codes 0/1/2 and where text goes; `twins twin` serving the
// official SDK and keeping its key across restarts of the same data file.

import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { cliProcess, startProcess, stopProcess } from './helpers.js';

// Several whole `twins` processes start here one after another (slow on a loaded machine).
t.setTimeout(300_000);
const dir = mkdtempSync(join(tmpdir(), 'twins-process-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('exit codes and streams', async (t) => {
  const [help, usage, runtime] = await Promise.all([
    cliProcess(['env', 'create', '--help']),
    cliProcess(['env', 'create', '--name', 'x', '--ttl', 'soon']),
    cliProcess(['token', '--email', 'a@b.c', '--org', 'o', '--role', 'admin'], { TWINS_DATA_DIR: join(dir, 'never-served') }),
  ]);
  t.equal(help.code, 0);
  t.match(help.stdout, /^twins env create — create an environment\n/);
  t.equal(help.stderr, '');
  t.equal(usage.code, 2);
  t.equal(usage.stdout, '');
  t.equal(usage.stderr, "twins env create: --ttl must be a whole number from 1 to 31536000 (got 'soon')\nRun 'twins env create --help' for usage.\n");
  t.equal(runtime.code, 1);
  t.match(runtime.stderr, /^twins token: No control plane uses the data directory/);
});

t.test('a standalone twin keeps its key across restarts; --key chooses one', async (t) => {
  const data = join(dir, 'stripe.sqlite');
  const args = ['twin', 'stripe', '--port', '0', '--data', data, '--json'];
  const listening = /\{[\s\S]*"data"[\s\S]*\}\n/;
  const first = await startProcess(args, {}, listening);
  const info = JSON.parse(first.match[0]);
  t.match(info, { twin: 'stripe', url: /^http:\/\/127\.0\.0\.1:\d+$/, api_key: /^sk_test_/, publishable_key: /^pk_test_/, data });
  t.match(info, { clock_mode: 'living', fidelity: 'strict' }, 'a local provider: its clock runs with wall time, and it is strict');
  const url = new URL(info.url);
  const sdk = (key: string) => new Stripe(key, { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 });
  const customer = await sdk(info.api_key).customers.create({ email: 'kept@example.com' });
  t.equal(await stopProcess(first.child), 0, 'SIGTERM stops it cleanly');

  const second = await startProcess(args, {}, listening);
  const again = JSON.parse(second.match[0]);
  t.equal(again.api_key, info.api_key, 'same key from the same data file');
  t.equal(again.publishable_key, info.publishable_key, 'and the same publishable key');
  const again2 = new URL(again.url);
  const sdk2 = new Stripe(again.api_key, { host: again2.hostname, port: Number(again2.port), protocol: 'http', maxNetworkRetries: 0 });
  t.equal(((await sdk2.customers.retrieve(customer.id)) as Stripe.Customer).email, 'kept@example.com', 'and the same records');
  t.equal(await stopProcess(second.child), 0);

  const chosen = await startProcess([...args, '--key', 'sk_test_from_env_file', '--clock', 'frozen', '--fidelity', 'lenient'], {}, listening);
  const c = JSON.parse(chosen.match[0]);
  t.equal(c.api_key, 'sk_test_from_env_file');
  t.match(c, { clock_mode: 'frozen', fidelity: 'lenient' }, '--clock and --fidelity choose');
  const u = new URL(c.url);
  const ok = await new Stripe('sk_test_from_env_file', { host: u.hostname, port: Number(u.port), protocol: 'http', maxNetworkRetries: 0 }).customers.list();
  t.ok(ok.data.length >= 1);
  t.equal(await stopProcess(chosen.child), 0);

  // Text mode tells a person the URL, the key and where the data lives.
  const text = await startProcess(['twin', 'github', '--port', '0', '--data', join(dir, 'github.sqlite')], {}, /data: .*\n/);
  t.match(
    text.stdout(),
    /^GitHub twin listening on http:\/\/127\.0\.0\.1:\d+ \(and https:\/\/127\.0\.0\.1:\d+\)\napi key: ghp_\w+\nmcp url: http:\/\/127\.0\.0\.1:\d+\/mcp\ndata: .*github\.sqlite \(records and key kept across restarts\)\nCA: /,
  );
  t.equal(await stopProcess(text.child), 0);
});
