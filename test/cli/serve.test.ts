// `twins serve` as a process: it leaves a note in its data directory that `twins token` and the
// API commands of the same folder use, refuses a second server on that directory, logs one JSON
// line per API request when stdout is not a terminal, sends a browser at / to the docs, and stops
// cleanly on SIGTERM (removing the note).

import t from 'tap';
import { TWIN_SLUGS } from '../../twin-runtime/registry.js';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliProcess, startProcess, stopProcess } from './helpers.js';
import { ensureBuilt } from '../orchestration/build.js';

// Several whole `twins` processes start here one after another (slow on a loaded machine).
t.setTimeout(300_000);
const dir = mkdtempSync(join(tmpdir(), 'twins-serve-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('twins serve: a note for the other commands, one server per directory, SIGTERM', async (t) => {
  ensureBuilt();
  const data = join(dir, 'served');
  const env = { TWINS_DATA_DIR: data, TWINS_LOG_FORMAT: 'json' };
  const server = await startProcess(['serve', '--port', '0'], env, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
  const url = server.match[1]!;
  t.ok(existsSync(join(data, 'server.json')), 'the note is written');
  const [token, second, root] = await Promise.all([
    cliProcess(['token', '--email', 'ada@example.com', '--org', 'acme', '--role', 'admin'], env),
    cliProcess(['serve', '--port', '0'], env),
    fetch(url + '/', { headers: { accept: 'text/html' }, redirect: 'manual' }),
  ]);
  t.equal(token.code, 0, token.stderr);
  // No --url: the API commands find the server of TWINS_DATA_DIR.
  const catalog = await cliProcess(['catalog', '--json'], { ...env, TWINS_TOKEN: token.stdout.trim() });
  t.equal(catalog.code, 0, catalog.stderr);
  t.equal(JSON.parse(catalog.stdout).length, TWIN_SLUGS.length);
  t.equal(second.code, 1);
  t.match(second.stderr, /^twins serve: A control plane \(pid \d+\) already serves .* at http:\/\/127\.0\.0\.1:\d+; stop it first/);
  // A browser at / gets the web console (503 with a note where it is not built), never a redirect.
  t.ok([200, 503].includes(root.status), `console page or its note, got ${root.status}`);
  t.equal(root.headers.get('location'), null);
  const lines = server
    .stdout()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.ok(
    lines.some((l) => l.route === '/twins/catalog' && l.status === 200 && l.msg === 'GET /twins/catalog 200 ' + l.ms.toFixed(1) + 'ms'),
    'one JSON log line per API request',
  );
  t.equal(await stopProcess(server.child), 0);
  t.notOk(existsSync(join(data, 'server.json')), 'the note is removed at shutdown');
});
