// The packs the twin writes for clones and fetches (model/git-transfer.ts packOf) and the side-band
// framing they travel in (wire/pkt-line.ts sideband): read back by a library nobody here wrote
// (isomorphic-git's indexPack) and by git's own index-pack where Debian's git is installed.

import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import git from 'isomorphic-git';
import { startTwin } from '../../helpers/twin.js';
import { ensureGit, gitOk } from '../../helpers/git.js';
import { objectsFor, packOf } from '../../../twins/github/model/git-transfer.js';
import { putBlob, putTree, createCommit } from '../../../twins/github/model/git.js';
import { readObject } from '../../../twins/github/model/git-objects.js';
import { findRepository } from '../../../twins/github/model/repositories.js';
import { readPackets, sideband } from '../../../twins/github/wire/pkt-line.js';

t.test('sideband frames several buffers as one stream, views not copies, each packet within the limit', async (t) => {
  const parts = [Buffer.from('abc'), randomBytes(70_000), Buffer.alloc(0), randomBytes(10), randomBytes(65_515 * 2 - 70_013)];
  const whole = Buffer.concat(parts);
  for (const max of [65_515, 995, 7]) {
    const framed = Buffer.concat(sideband(1, parts, max));
    const { packets, rest } = readPackets(framed);
    t.equal(rest.length, 0, `max ${max}: nothing left over`);
    t.ok(packets.length > 0, `max ${max}: packets written`);
    const bodies = packets.map((p) => (p.kind === 'data' ? p.data : Buffer.alloc(0)));
    t.ok(
      bodies.every((b) => b[0] === 1 && b.length - 1 <= max && b.length > 1),
      `max ${max}: band 1, 1..max bytes each`,
    );
    t.ok(Buffer.concat(bodies.map((b) => b.subarray(1))).equals(whole), `max ${max}: the stream reads back whole`);
  }
  t.same(sideband(2, Buffer.alloc(0)), [], 'nothing to send: no packet');
  t.equal(Buffer.concat(sideband(2, Buffer.from('x'))).toString('latin1'), '0006\x02x', 'one byte on band 2');
});

t.test('packOf writes a pack that isomorphic-git and git index, every object whole', async (t) => {
  const twin = await startTwin('github');
  const work = mkdtempSync(join(tmpdir(), 'twins-pack-'));
  t.teardown(async () => {
    await twin.close();
    rmSync(work, { recursive: true, force: true });
  });
  const res = await fetch(`${twin.url}/user/repos`, {
    method: 'POST',
    headers: { authorization: `Bearer ${twin.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'packed' }),
  });
  const repoJson = (await res.json()) as { name: string; owner: { login: string } };
  const ctx = twin.server.ctx;
  const repo = findRepository(ctx, repoJson.owner.login, repoJson.name)!;
  // Sizes around the header's boundaries: 4 bits in the first byte, 7 more per byte after.
  const sizes = [0, 1, 15, 16, 17, 2047, 2048, 2049, 262_143, 262_144, 1_000_000];
  const files = new Map<string, string>();
  for (const [i, size] of sizes.entries()) files.set(`dir${i % 3}/f${size}.bin`, putBlob(ctx, repo, randomBytes(size)));
  const tree = putTree(ctx, repo, files, new Map());
  const commit = createCommit(ctx, repo, { message: 'Sizes\n', tree, parents: [], by: repo.owner });
  const wanted = objectsFor(ctx, repo, [commit.sha], [], false);
  t.equal(wanted.length, 1 + 4 + sizes.length, 'the commit, four trees and every blob');
  const pack = Buffer.concat(packOf(ctx, repo, wanted));
  t.equal(pack.subarray(0, 4).toString('latin1'), 'PACK', 'signature');
  t.equal(pack.readUInt32BE(8), wanted.length, 'object count');

  // isomorphic-git reads it (its own SHA-1 of each object names it).
  const fs = (await import('node:fs')).default;
  const gitdir = join(work, 'iso.git');
  await git.init({ fs, gitdir, bare: true });
  const packPath = join(gitdir, 'objects', 'pack', 'pack-test.pack');
  writeFileSync(packPath, pack);
  const { oids } = await git.indexPack({ fs, dir: gitdir, gitdir, filepath: 'objects/pack/pack-test.pack' });
  t.same([...oids].sort(), wanted.map((w) => w.sha).sort(), 'isomorphic-git indexes every object by its name');
  for (const w of wanted) {
    const o = await git.readObject({ fs, gitdir, oid: w.sha, format: 'content' });
    t.equal(o.type, w.type, `${w.sha.slice(0, 7)} is a ${w.type}`);
    t.ok(Buffer.from(o.object as Uint8Array).equals(readObject(ctx, repo, w.sha)!.content), `${w.sha.slice(0, 7)} content as stored`);
  }

  const have = ensureGit();
  await t.test('git index-pack and verify-pack read it', { skip: have.ok ? false : have.reason }, async (t) => {
    const file = join(work, 'twin.pack');
    writeFileSync(file, pack);
    const out = await gitOk(['index-pack', '-v', file]);
    t.match(out, /[0-9a-f]{40}/, 'git index-pack accepts it');
    const verify = await gitOk(['verify-pack', '-v', file.replace(/\.pack$/, '.idx')]);
    t.match(verify, new RegExp(`${commit.sha} commit`), 'git verify-pack lists the commit');
    t.match(verify, /non delta: 16 objects/, 'every object whole');
  });
});
