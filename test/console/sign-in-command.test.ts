// `twins console`: the link it prints (the control plane's address, the ticket in the fragment),
// opening a browser only where there is one and not with --no-open, refusing a data directory no
// server uses, and the printed link signing in exactly once; through the `twins` command as well.

import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { canOpenBrowser, runConsoleSignIn, signInUrl, type ConsoleSignInIo } from '../../control-plane/console/sign-in-command.js';
import { startTestControlPlane } from '../helpers/control-plane.js';

const cp = await startTestControlPlane();
t.teardown(() => cp.stop());

function io(env: NodeJS.ProcessEnv = {}, opened: string[] = []): ConsoleSignInIo & { out: string; err: string } {
  const o = {
    out: '',
    err: '',
    env,
    platform: 'linux' as NodeJS.Platform,
    stdout: (s: string) => void (o.out += s),
    stderr: (s: string) => void (o.err += s),
    openUrl: async (u: string) => (opened.push(u), true),
  };
  return o;
}

const base = { email: 'ada@example.com', org: 'acme', role: 'admin' as const };

t.test('the link: this control plane, the ticket in the fragment', async (t) => {
  t.equal(signInUrl('http://127.0.0.1:8080', 'a.b.c'), 'http://127.0.0.1:8080/#ticket=a.b.c');
  t.equal(signInUrl('https://twins.example.com/some/path?q=1', 'x'), 'https://twins.example.com/#ticket=x', 'always the root page');
  const opened: string[] = [];
  const out = io({ DISPLAY: ':0' }, opened);
  const url = await runConsoleSignIn({ ...base, url: cp.url, dataDir: cp.dataDir }, out);
  t.equal(out.out, `${url}\n`, 'stdout carries the link alone');
  t.match(out.err, /works once, within 2 minutes/);
  t.match(out.err, /Opened in your browser/);
  t.same(opened, [url], 'opened where a display exists');
  const ticket = decodeURIComponent(new URL(url).hash.slice('#ticket='.length));
  const first = await cp.call('POST', '/auth/token', { body: { grant_type: 'sign_in_ticket', ticket } });
  t.equal(first.status, 200, 'the printed link signs in');
  t.equal((await cp.call('GET', '/users/me', { token: first.body.access_token })).body.email, 'ada@example.com');
  t.equal((await cp.call('POST', '/auth/token', { body: { grant_type: 'sign_in_ticket', ticket } })).status, 401, 'once');
});

t.test('a browser is opened only where one can be, and never with --no-open', async (t) => {
  t.notOk(canOpenBrowser({}, 'linux'), 'no display on Linux: nothing to open');
  t.ok(canOpenBrowser({ WAYLAND_DISPLAY: 'wayland-0' }, 'linux'));
  t.ok(canOpenBrowser({ BROWSER: 'firefox' }, 'linux'));
  t.ok(canOpenBrowser({}, 'darwin'));
  const opened: string[] = [];
  const headless = io({}, opened);
  await runConsoleSignIn({ ...base, url: cp.url, dataDir: cp.dataDir }, headless);
  t.same(opened, [], 'headless: printed, not opened');
  const noOpen = io({ DISPLAY: ':0' }, opened);
  await runConsoleSignIn({ ...base, url: cp.url, dataDir: cp.dataDir, open: false }, noOpen);
  t.same(opened, [], '--no-open: printed, not opened');
  t.notMatch(noOpen.err, /browser/);
});

t.test('refusals', async (t) => {
  const empty = mkdtempSync(join(tmpdir(), 'twins-empty-'));
  t.teardown(() => rmSync(empty, { recursive: true, force: true }));
  await t.rejects(runConsoleSignIn({ ...base, url: cp.url, dataDir: empty }, io()), /No local identity provider in/, 'a folder no server uses');
  await t.rejects(runConsoleSignIn({ ...base, url: cp.url, dataDir: cp.dataDir }, io({ TWINS_IDP: 'oidc' })), /sign in with your identity provider/);
  await t.rejects(runConsoleSignIn({ ...base, url: cp.url, dataDir: cp.dataDir, sessionSeconds: 10 ** 6 }, io()), /session lifetime/);
});

t.test('the twins command', async (t) => {
  const run = promisify(execFile);
  // The CLI from source (bin/twins.js runs the same file compiled).
  const cli = ['--import=tsx', join(process.cwd(), 'control-plane', 'cli', 'index.ts')];
  const env = { ...process.env, TWINS_DATA_DIR: cp.dataDir, PORT: new URL(cp.url).port, HOST: '127.0.0.1', DISPLAY: '', WAYLAND_DISPLAY: '', BROWSER: '' };
  const { stdout, stderr } = await run(process.execPath, [...cli, 'console', '--email', 'bob@example.com', '--org', 'acme', '--role', 'member', '--no-open'], {
    env,
  });
  const url = stdout.trim();
  t.match(url, new RegExp(`^${cp.url}/#ticket=`));
  t.match(stderr, /bob@example.com \(member of acme\)/);
  const ticket = decodeURIComponent(new URL(url).hash.slice('#ticket='.length));
  t.equal((await cp.call('POST', '/auth/token', { body: { grant_type: 'sign_in_ticket', ticket } })).status, 200);
  const usage = await run(process.execPath, [...cli, 'console', '--email', 'bob@example.com'], { env }).catch((e) => e);
  t.equal(usage.code, 2, 'missing flags: usage, exit 2');
  t.match(usage.stderr, /^twins console: .*--org/);
});
