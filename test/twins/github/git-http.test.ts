// Git over smart HTTP against the GitHub twin through the gateway, driven by Debian's `git`:
// clone/fetch/ls-remote in protocol v0 and v2, shallow clones, pushes (new branch, fast-forward,
// non-fast-forward refused by git, force, delete), credentials (x-access-token password, bearer,
// 401 + WWW-Authenticate without), SHAs equal in `git log` and the REST API, what a push sets off
// (push webhook, `synchronize`, closing keywords, `onPush`), https:// on the same port with the
// local CA, and bad input (malformed pkt-lines, truncated packs, objects not hashing to their name)
// leaving the repository as it was.

import t from 'tap';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { Octokit } from '@octokit/rest';
import { ensureGit, git, gitOk } from '../../helpers/git.js';
import { startTwinBehindGateway } from '../../helpers/gateway-twin.js';
import { onPush } from '../../../twins/github/model/pushes.js';

process.env.TWIN_DELIVERY_BACKOFF_MS = '50,50';
// Dozens of git processes, one after another (slow on a loaded machine).
t.setTimeout(600_000);

const have = ensureGit();
if (!have.ok) {
  t.plan(0, have.reason);
} else {
  await main();
}

async function main(): Promise<void> {
  const received: { event: string; body: any }[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ event: String(req.headers['x-github-event']), body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const gw = await startTwinBehindGateway('github', { clockStart: new Date('2026-01-05T10:00:00Z') });
  const work = mkdtempSync(join(tmpdir(), 'twins-git-'));
  const pushed: string[] = [];
  const listener = (_ctx: unknown, _repo: unknown, push: { ref: string }) => void pushed.push(push.ref);
  onPush.push(listener);
  t.teardown(async () => {
    onPush.splice(onPush.indexOf(listener), 1);
    await gw.close();
    await new Promise((r) => receiver.close(r));
    rmSync(work, { recursive: true, force: true });
  });

  const octokit = new Octokit({ auth: gw.apiKey, baseUrl: gw.url, log: { debug() {}, info() {}, warn() {}, error() {} } });
  const me = (await octokit.users.getAuthenticated()).data.login;
  await octokit.repos.createForAuthenticatedUser({ name: 'demo', auto_init: true });
  await octokit.repos.createWebhook({ owner: me, repo: 'demo', config: { url: hookUrl, content_type: 'json' }, events: ['push', 'pull_request', 'issues'] });
  const remote = `${gw.url.replace('http://', `http://x-access-token:${gw.apiKey}@`)}/${me}/demo.git`;
  const dir = (name: string) => join(work, name);

  async function deliveries(pred: (d: { event: string; body: any }) => boolean, what: string): Promise<{ event: string; body: any }> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const hit = received.find(pred);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`no delivery: ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async function remoteRefs(): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const l of (await gitOk(['ls-remote', remote])).trim().split('\n').filter(Boolean)) {
      const [sha, ref] = l.split('\t');
      out.set(ref!, sha!);
    }
    return out;
  }

  t.test('credentials: none → 401 with WWW-Authenticate Basic (a public repository reads without); git reports the failure', async (t) => {
    await octokit.repos.createForAuthenticatedUser({ name: 'closed', private: true, auto_init: true });
    const res = await fetch(`${gw.url}/${me}/closed.git/info/refs?service=git-upload-pack`);
    t.equal(res.status, 401);
    t.match(res.headers.get('www-authenticate'), /^Basic realm="GitHub"/);
    const anonymous = await fetch(`${gw.url}/${me}/demo.git/info/refs?service=git-upload-pack`);
    t.equal(anonymous.status, 200, 'a public repository is read anonymously, as on GitHub');
    const pushAnon = await fetch(`${gw.url}/${me}/demo.git/info/refs?service=git-receive-pack`);
    t.equal(pushAnon.status, 401, 'but not pushed to');
    const wrong = await fetch(`${gw.url}/${me}/demo.git/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Basic ${Buffer.from('x-access-token:ghp_wrong').toString('base64')}` },
    });
    t.equal(wrong.status, 401, 'a wrong key is refused, even for a public repository');
    const r = await git(['ls-remote', `${gw.url}/${me}/closed.git`]);
    t.not(r.code, 0);
    t.match(r.stderr, /could not read Username|Authentication failed/);
    const missing = await git(['ls-remote', `${gw.url.replace('http://', `http://x-access-token:${gw.apiKey}@`)}/${me}/nope.git`]);
    t.not(missing.code, 0);
    t.match(missing.stderr, /not found/i);
  });

  t.test('clone in protocol v0 and v2, with the key as password or as a bearer token', async (t) => {
    const { data: commits } = await octokit.repos.listCommits({ owner: me, repo: 'demo' });
    t.equal(commits.length, 1);
    for (const v of ['0', '2']) {
      await gitOk(['-c', `protocol.version=${v}`, 'clone', remote, dir(`v${v}`)]);
      t.equal((await gitOk(['rev-parse', 'HEAD'], { cwd: dir(`v${v}`) })).trim(), commits[0]!.sha, `v${v}: the twin's commit SHA is git's`);
      t.equal(readFileSync(join(dir(`v${v}`), 'README.md'), 'utf8'), '# demo\n');
      t.equal((await gitOk(['fsck', '--strict'], { cwd: dir(`v${v}`) })).trim(), '', `v${v}: git fsck finds nothing wrong`);
    }
    await gitOk(['-c', `http.extraHeader=Authorization: Bearer ${gw.apiKey}`, 'clone', `${gw.url}/${me}/demo`, dir('bearer')]);
    t.equal((await gitOk(['rev-parse', 'HEAD'], { cwd: dir('bearer') })).trim(), commits[0]!.sha, 'bearer token, URL without .git');
  });

  t.test('push: new branch, fast-forward, PR synchronize, closing keywords, webhooks, SHAs in REST', async (t) => {
    const d = dir('v2');
    writeFileSync(join(d, 'app.js'), 'console.log(1)\n');
    writeFileSync(join(d, 'run.sh'), '#!/bin/sh\necho hi\n');
    chmodSync(join(d, 'run.sh'), 0o755);
    mkdirSync(join(d, 'src', 'lib'), { recursive: true });
    writeFileSync(join(d, 'src', 'lib', 'util.js'), 'export const x = 1;\n');
    await gitOk(['add', '.'], { cwd: d });
    await gitOk(['commit', '-m', 'Add app'], { cwd: d });
    const first = (await gitOk(['rev-parse', 'HEAD'], { cwd: d })).trim();
    const push = await git(['push', 'origin', 'HEAD:refs/heads/feature'], { cwd: d });
    t.equal(push.code, 0, push.stderr);
    t.match(push.stderr, /\* \[new branch\]\s+HEAD -> feature/);
    const branch = await octokit.repos.getBranch({ owner: me, repo: 'demo', branch: 'feature' });
    t.equal(branch.data.commit.sha, first, 'REST sees the pushed commit under the same SHA');
    const { data: c } = await octokit.repos.getCommit({ owner: me, repo: 'demo', ref: first });
    t.equal(c.commit.message, 'Add app');
    t.equal(c.commit.author!.email, 'ada@example.com');
    t.same(c.files!.map((f) => f.filename).sort(), ['app.js', 'run.sh', 'src/lib/util.js']);
    const tree = await octokit.git.getTree({ owner: me, repo: 'demo', tree_sha: c.commit.tree.sha });
    t.equal(tree.data.tree.find((e) => e.path === 'run.sh')?.mode, '100755', 'the executable bit is kept');
    t.same(
      tree.data.tree.find((e) => e.path === 'src'),
      {
        path: 'src',
        mode: '040000',
        type: 'tree',
        sha: (await gitOk(['rev-parse', 'HEAD:src'], { cwd: d })).trim(),
        url: `${gw.url}/repos/${me}/demo/git/trees/${(await gitOk(['rev-parse', 'HEAD:src'], { cwd: d })).trim()}`,
      },
    );
    const deep = await octokit.git.getTree({ owner: me, repo: 'demo', tree_sha: first, recursive: '1' });
    t.same(
      deep.data.tree.map((e) => `${e.type} ${e.path}`),
      ['blob README.md', 'blob app.js', 'blob run.sh', 'tree src', 'tree src/lib', 'blob src/lib/util.js'],
    );
    t.equal(deep.data.tree.at(-1)!.sha, (await gitOk(['rev-parse', 'HEAD:src/lib/util.js'], { cwd: d })).trim());
    const listing = await octokit.repos.getContent({ owner: me, repo: 'demo', path: 'src/lib', ref: 'feature' });
    t.same(
      (listing.data as { name: string }[]).map((e) => e.name),
      ['util.js'],
    );
    const src = (await octokit.repos.getContent({ owner: me, repo: 'demo', path: 'src', ref: 'feature' })).data as {
      name: string;
      type: string;
      sha: string;
    }[];
    t.same(
      src.map((e) => [e.name, e.type, e.sha]),
      [['lib', 'dir', (await gitOk(['rev-parse', 'HEAD:src/lib'], { cwd: d })).trim()]],
      'a directory entry carries its tree SHA',
    );
    const created = await deliveries((d) => d.event === 'push' && d.body.ref === 'refs/heads/feature', 'push of feature');
    t.equal(created.body.created, true);
    t.equal(created.body.after, first);
    t.same(
      created.body.commits.map((x: any) => x.id),
      [first],
    );

    const { data: issue } = await octokit.issues.create({ owner: me, repo: 'demo', title: 'Crash on start' });
    const { data: pr } = await octokit.pulls.create({ owner: me, repo: 'demo', title: 'App', head: 'feature', base: 'main' });
    writeFileSync(join(d, 'app.js'), 'console.log(2)\n');
    await gitOk(['commit', '-am', `Fix the crash\n\nFixes #${issue.number}`], { cwd: d });
    const second = (await gitOk(['rev-parse', 'HEAD'], { cwd: d })).trim();
    await gitOk(['push', 'origin', 'HEAD:feature'], { cwd: d });
    const sync = await deliveries((x) => x.event === 'pull_request' && x.body.action === 'synchronize', 'synchronize');
    t.equal(sync.body.number, pr.number);
    t.equal(sync.body.after, second);
    t.equal((await octokit.pulls.get({ owner: me, repo: 'demo', pull_number: pr.number })).data.head.sha, second);
    t.equal((await octokit.issues.get({ owner: me, repo: 'demo', issue_number: issue.number })).data.state, 'open', 'not closed by a push to another branch');

    const ff = await git(['push', 'origin', 'HEAD:main'], { cwd: d });
    t.equal(ff.code, 0, ff.stderr);
    const { data: log } = await octokit.repos.listCommits({ owner: me, repo: 'demo' });
    t.same(
      log.map((x) => x.sha),
      (await gitOk(['log', '--format=%H'], { cwd: d })).trim().split('\n'),
      'GET /commits lists git log',
    );
    const closed = await octokit.issues.get({ owner: me, repo: 'demo', issue_number: issue.number });
    t.equal(closed.data.state, 'closed', 'the closing keyword acted on the default branch');
    t.equal(closed.data.state_reason, 'completed');
    const main = await deliveries((x) => x.event === 'push' && x.body.ref === 'refs/heads/main', 'push of main');
    t.equal(main.body.forced, false);
    t.same(
      main.body.commits.map((x: any) => x.id),
      [first, second],
    );
    t.ok(pushed.includes('refs/heads/main') && pushed.includes('refs/heads/feature'), 'onPush listeners ran');
  });

  t.test('fetch and ls-remote in v0 and v2; shallow clone', async (t) => {
    for (const v of ['0', '2']) {
      await gitOk(['-c', `protocol.version=${v}`, 'fetch', 'origin'], { cwd: dir('v0') });
      const main = (await gitOk(['rev-parse', 'origin/main'], { cwd: dir('v0') })).trim();
      t.equal(main, (await gitOk(['rev-parse', 'HEAD'], { cwd: dir('v2') })).trim(), `v${v}: fetched the new tip`);
      const ls = await gitOk(['-c', `protocol.version=${v}`, 'ls-remote', '--symref', remote]);
      t.match(ls, /ref: refs\/heads\/main\tHEAD/);
      t.match(ls, new RegExp(`${main}\\trefs/heads/main`));
    }
    await gitOk(['clone', '--depth', '1', remote, dir('shallow')]);
    t.equal((await gitOk(['rev-list', '--count', 'HEAD'], { cwd: dir('shallow') })).trim(), '1', 'one commit deep');
    t.equal(readFileSync(join(dir('shallow'), '.git', 'shallow'), 'utf8').trim().length, 40);
  });

  t.test('non-fast-forward refused, force accepted (forced: true), delete, default branch kept', async (t) => {
    const d = dir('v0');
    await gitOk(['reset', '--hard', 'origin/main~1'], { cwd: d });
    writeFileSync(join(d, 'other.txt'), 'diverged\n');
    await gitOk(['add', '.'], { cwd: d });
    await gitOk(['commit', '-m', 'Diverge'], { cwd: d });
    const before = await remoteRefs();
    const refused = await git(['push', 'origin', 'HEAD:main'], { cwd: d });
    t.not(refused.code, 0);
    t.match(refused.stderr, /\[rejected\].*(non-fast-forward|fetch first)/);
    t.same(await remoteRefs(), before, 'nothing moved');
    const forced = await git(['push', '--force', 'origin', 'HEAD:main'], { cwd: d });
    t.equal(forced.code, 0, forced.stderr);
    const tip = (await gitOk(['rev-parse', 'HEAD'], { cwd: d })).trim();
    t.equal((await octokit.repos.getBranch({ owner: me, repo: 'demo', branch: 'main' })).data.commit.sha, tip);
    const event = await deliveries((x) => x.event === 'push' && x.body.after === tip, 'forced push');
    t.equal(event.body.forced, true);
    // A stale old value (the client thinks main is elsewhere) is refused by the twin itself.
    const stale = await git(['push', '--force-with-lease=main:' + before.get('refs/heads/main'), 'origin', 'HEAD~1:main'], { cwd: d });
    t.not(stale.code, 0);
    const del = await git(['push', 'origin', ':feature'], { cwd: d });
    t.equal(del.code, 0, del.stderr);
    t.notOk((await remoteRefs()).has('refs/heads/feature'));
    const deleted = await deliveries((x) => x.event === 'push' && x.body.ref === 'refs/heads/feature' && x.body.deleted, 'deletion');
    t.equal(deleted.body.after, '0000000000000000000000000000000000000000');
    const keep = await git(['push', 'origin', ':main'], { cwd: d });
    t.not(keep.code, 0);
    t.match(keep.stderr, /refusing to delete the current branch/);
  });

  t.test('https:// on the same port, with the local CA', async (t) => {
    const url = `${gw.httpsUrl.replace('https://', `https://x-access-token:${gw.apiKey}@`)}/${me}/demo.git`;
    const untrusted = await git(['ls-remote', url], { env: { GIT_SSL_CAINFO: '/dev/null', SSL_CERT_FILE: '/dev/null' } });
    t.not(untrusted.code, 0, 'not trusted without the CA');
    await gitOk(['clone', url, dir('tls')], { env: { GIT_SSL_CAINFO: gw.caFile } });
    t.equal((await gitOk(['rev-parse', 'HEAD'], { cwd: dir('tls') })).trim(), (await gitOk(['rev-parse', 'HEAD'], { cwd: dir('v0') })).trim());
    for (const host of ['127.0.0.1', 'localhost']) {
      const port = new URL(gw.httpsUrl).port;
      const body = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = httpsRequest({ host, port, path: '/user', ca: readFileSync(gw.caFile), headers: { authorization: `Bearer ${gw.apiKey}` } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString() }));
        });
        req.on('error', reject);
        req.end();
      });
      t.equal(body.status, 200, `https://${host} verified against the CA`);
      t.equal(JSON.parse(body.text).login, me);
    }
    t.equal((await fetch(`${gw.url}/user`, { headers: { authorization: `Bearer ${gw.apiKey}` } })).status, 200, 'plain http still answers');
  });

  t.test('an empty repository: clone, first push sets the default branch, annotated tags', async (t) => {
    await octokit.repos.createForAuthenticatedUser({ name: 'empty' });
    const url = remote.replace('/demo.git', '/empty.git');
    for (const v of ['0', '2']) {
      const r = await git(['-c', `protocol.version=${v}`, 'clone', url, dir(`empty${v}`)]);
      t.equal(r.code, 0, r.stderr);
      t.match(r.stderr, /cloned an empty repository/, `v${v}`);
    }
    const d = dir('empty2');
    await gitOk(['checkout', '-b', 'trunk'], { cwd: d });
    writeFileSync(join(d, 'a.txt'), 'a\n');
    await gitOk(['add', '.'], { cwd: d });
    await gitOk(['commit', '-m', 'First'], { cwd: d });
    await gitOk(['tag', '-a', 'v1.0', '-m', 'Release one'], { cwd: d });
    await gitOk(['push', 'origin', 'trunk', '--tags'], { cwd: d });
    t.equal((await octokit.repos.get({ owner: me, repo: 'empty' })).data.default_branch, 'trunk', 'the first branch pushed becomes the default');
    const tag = (await gitOk(['rev-parse', 'v1.0'], { cwd: d })).trim();
    const ref = await octokit.git.getRef({ owner: me, repo: 'empty', ref: 'tags/v1.0' });
    t.same([ref.data.object.sha, ref.data.object.type], [tag, 'tag']);
    const ls = await gitOk(['ls-remote', url]);
    t.match(ls, new RegExp(`${tag}\\trefs/tags/v1.0\n[0-9a-f]{40}\\trefs/tags/v1.0\\^\\{\\}`), 'the tag is advertised peeled');
    await gitOk(['clone', url, dir('empty-again')]);
    t.match(await gitOk(['tag', '-n'], { cwd: dir('empty-again') }), /v1\.0\s+Release one/);
    t.equal((await gitOk(['fsck', '--strict'], { cwd: dir('empty-again') })).trim(), '');
  });

  t.test('bad input leaves the repository unchanged', async (t) => {
    const auth = { authorization: `Basic ${Buffer.from(`x-access-token:${gw.apiKey}`).toString('base64')}` };
    const before = await remoteRefs();
    t.ok(before.size > 0);

    // Malformed pkt-lines: git's own "remote error" packet.
    for (const [service, body] of [
      ['git-upload-pack', 'zzzzwant'],
      ['git-receive-pack', '00'],
      ['git-upload-pack', '0032want 123\n'],
    ] as const) {
      const res = await fetch(`${gw.url}/${me}/demo.git/${service}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': `application/x-${service}-request` },
        body,
      });
      t.equal(res.status, 200);
      t.match(await res.text(), /^[0-9a-f]{4}ERR protocol error/, `${service} answers ERR to ${JSON.stringify(body)}`);
    }

    // A truncated pack: refused at unpack, no ref moves.
    const d = dir('v0');
    writeFileSync(join(d, 'big.bin'), Buffer.alloc(50_000, 7));
    await gitOk(['add', '.'], { cwd: d });
    await gitOk(['commit', '-m', 'Big'], { cwd: d });
    const tip = (await gitOk(['rev-parse', 'HEAD'], { cwd: d })).trim();
    const pack = await new Promise<Buffer>((resolve, reject) => {
      const p = spawn('git', ['pack-objects', '--stdout', '--revs'], { cwd: d });
      const chunks: Buffer[] = [];
      p.stdout.on('data', (c: Buffer) => chunks.push(c));
      p.on('close', (code) => (code === 0 ? resolve(Buffer.concat(chunks)) : reject(new Error(`pack-objects ${code}`))));
      p.stdin.end(`${tip}\n^${before.get('refs/heads/main')}\n`);
    });
    const command = (payload: string) => Buffer.from((payload.length + 4).toString(16).padStart(4, '0') + payload);
    const cmd = Buffer.concat([command(`${'0'.repeat(40)} ${tip} refs/heads/truncated\0report-status\n`), Buffer.from('0000')]);
    const truncated = await fetch(`${gw.url}/${me}/demo.git/git-receive-pack`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/x-git-receive-pack-request' },
      body: Buffer.concat([cmd, pack.subarray(0, pack.length - 100)]),
    });
    const report = await truncated.text();
    t.match(report, /unpack (?!ok)/, 'the unpack fails');
    t.match(report, /ng refs\/heads\/truncated unpacker error/);
    const whole = await fetch(`${gw.url}/${me}/demo.git/git-receive-pack`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/x-git-receive-pack-request' },
      body: Buffer.concat([cmd, pack]),
    });
    t.match(await whole.text(), /unpack ok\n.*ok refs\/heads\/truncated/s, 'the same pack whole is accepted (the test can fail)');
    await gitOk(['push', 'origin', ':truncated'], { cwd: d });

    // An object that does not hash to its name: git sends the corrupted bytes, the twin computes the
    // real name, finds the tree's blob missing and refuses the ref.
    writeFileSync(join(d, 'note.txt'), 'the real content\n');
    await gitOk(['add', 'note.txt'], { cwd: d });
    await gitOk(['commit', '-m', 'Note'], { cwd: d });
    const blob = (await gitOk(['rev-parse', 'HEAD:note.txt'], { cwd: d })).trim();
    const loose = join(d, '.git', 'objects', blob.slice(0, 2), blob.slice(2));
    chmodSync(loose, 0o644);
    const fake = Buffer.from('forged content!!\n');
    writeFileSync(loose, deflateSync(Buffer.concat([Buffer.from(`blob ${fake.length}\0`), fake])));
    const evil = await git(['push', 'origin', 'HEAD:refs/heads/evil'], { cwd: d });
    const evilSha = (await gitOk(['rev-parse', 'HEAD'], { cwd: d })).trim();
    t.not(evil.code, 0, 'git reports the push failed');
    t.match(evil.stderr, /remote rejected|missing necessary objects|unpack/);
    const after = await remoteRefs();
    t.notOk(after.has('refs/heads/evil'));
    t.same(after, before, 'every ref as it was');
    // A tree git's fsck refuses (a zero-padded mode): the whole pack is refused.
    await gitOk(['fetch', 'origin'], { cwd: d });
    await gitOk(['reset', '--hard', 'origin/main'], { cwd: d });
    const blobSha = (await gitOk(['rev-parse', 'HEAD:README.md'], { cwd: d })).trim();
    const rawTree = Buffer.concat([Buffer.from('0100644 README.md\0'), Buffer.from(blobSha, 'hex')]);
    writeFileSync(join(work, 'bad-tree'), rawTree);
    const badTree = (await gitOk(['hash-object', '--literally', '-t', 'tree', '-w', join(work, 'bad-tree')], { cwd: d })).trim();
    const badCommit = (await gitOk(['commit-tree', badTree, '-p', 'HEAD', '-m', 'Bad tree'], { cwd: d })).trim();
    const refusedTree = await git(['push', 'origin', `${badCommit}:refs/heads/badtree`], { cwd: d });
    t.not(refusedTree.code, 0);
    t.match(refusedTree.stderr, /unpack.*bad file mode|unpacker error/);
    t.notOk((await remoteRefs()).has('refs/heads/badtree'));

    const ghost = await octokit.repos.getCommit({ owner: me, repo: 'demo', ref: evilSha }).catch((e) => e);
    t.equal(ghost.status, 422, 'the refused commit is not in the repository');
  });
}
