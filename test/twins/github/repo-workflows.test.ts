// What an agent does around a repository besides git, with @octokit/rest and @octokit/graphql,
// standalone and through the recording gateway: the README, merges and update-branch as real merge
// commits, releases with assets (upload through `upload_url`, download as octet-stream, tags made on
// publish, duplicates refused, latest, generated notes, archives), deployments and environments on
// real SHAs with their guards, HEAD on GET routes, and GraphQL's releases, deployments and refusals
// of fields the twin does not model.

import t, { type Test } from 'tap';
import { gunzipSync } from 'node:zlib';
import { Octokit } from '@octokit/rest';
import { graphql } from '@octokit/graphql';
import { startTwinBehindGateway } from '../../helpers/gateway-twin.js';
import { startTwin } from '../../helpers/twin.js';
import { GITHUB_TEST_START, b64, failure } from './setup.js';

for (const via of ['standalone', 'gateway'] as const) {
  await t.test(via, (t) => scenario(t, via));
}

async function scenario(t: Test, via: 'standalone' | 'gateway'): Promise<void> {
  const target =
    via === 'gateway'
      ? await startTwinBehindGateway('github', { clockStart: GITHUB_TEST_START })
      : await startTwin('github', { clockStart: GITHUB_TEST_START });
  t.teardown(() => target.close());
  const octokit = new Octokit({ auth: target.apiKey, baseUrl: target.url, log: { debug() {}, info() {}, warn() {}, error() {} } });
  const gql = graphql.defaults({ baseUrl: target.url, headers: { authorization: `token ${target.apiKey}` } });
  const owner = 'octocat';
  const repo = 'site';
  await octokit.repos.createForAuthenticatedUser({ name: repo, auto_init: true, description: 'The site' });
  const head = async (branch = 'main') => (await octokit.git.getRef({ owner, repo, ref: `heads/${branch}` })).data.object.sha;

  await t.test('GET /readme: the root README, a directory one, raw bytes; none is a 404', async (t) => {
    const root = await octokit.repos.getReadme({ owner, repo });
    t.equal(root.data.path, 'README.md');
    t.equal(Buffer.from(root.data.content, 'base64').toString(), '# site\n\nThe site\n');
    await octokit.repos.createOrUpdateFileContents({ owner, repo, path: 'docs/guide/readme.rst', message: 'Guide', content: b64('Guide\n=====\n') });
    const dir = await octokit.repos.getReadmeInDirectory({ owner, repo, dir: 'docs/guide' });
    t.equal(dir.data.path, 'docs/guide/readme.rst');
    const raw = await fetch(`${target.url}/repos/${owner}/${repo}/readme`, {
      headers: { authorization: `token ${target.apiKey}`, accept: 'application/vnd.github.raw' },
    });
    t.equal(await raw.text(), '# site\n\nThe site\n');
    t.equal((await failure(octokit.repos.getReadmeInDirectory({ owner, repo, dir: 'src' }))).status, 404);
  });

  await t.test('POST /merges and update-branch write real merge commits', async (t) => {
    const main = await head();
    await octokit.git.createRef({ owner, repo, ref: 'refs/heads/topic', sha: main });
    await octokit.repos.createOrUpdateFileContents({ owner, repo, branch: 'topic', path: 'topic.txt', message: 'Topic', content: b64('topic\n') });
    await octokit.repos.createOrUpdateFileContents({ owner, repo, path: 'main.txt', message: 'Main moves on', content: b64('main\n') });
    const merged = await octokit.repos.merge({ owner, repo, base: 'main', head: 'topic' });
    t.equal(merged.status, 201);
    t.equal(merged.data.parents.length, 2);
    t.equal(merged.data.commit.message, 'Merge topic into main');
    t.equal(await head(), merged.data.sha);
    const again = await octokit.repos.merge({ owner, repo, base: 'main', head: 'topic' });
    t.equal(again.status, 204, 'already merged');
    t.equal((await failure(octokit.repos.merge({ owner, repo, base: 'nope', head: 'topic' }))).body.message, 'Base does not exist');

    await octokit.git.createRef({ owner, repo, ref: 'refs/heads/behind', sha: main });
    await octokit.repos.createOrUpdateFileContents({ owner, repo, branch: 'behind', path: 'behind.txt', message: 'Behind', content: b64('b\n') });
    const { data: pr } = await octokit.pulls.create({ owner, repo, title: 'Behind', head: 'behind', base: 'main' });
    const before = await head('behind');
    const updated = await octokit.pulls.updateBranch({ owner, repo, pull_number: pr.number });
    t.equal(updated.status, 202);
    t.equal(updated.data.message, 'Updating pull request branch.');
    const after = await octokit.git.getCommit({ owner, repo, commit_sha: await head('behind') });
    t.same(
      after.data.parents.map((p) => p.sha),
      [before, await head()],
      'the base merged into the head',
    );
    t.equal(after.data.message, "Merge branch 'main' into behind");
    t.equal((await octokit.pulls.get({ owner, repo, pull_number: pr.number })).data.head.sha, after.data.sha);
    const nothing = await failure(octokit.pulls.updateBranch({ owner, repo, pull_number: pr.number }));
    t.equal(nothing.status, 422);
    const cmp = await octokit.repos.compareCommits({ owner, repo, base: 'main', head: 'behind' });
    t.equal(cmp.data.status, 'ahead');
    t.equal(cmp.data.behind_by, 0);
  });

  await t.test('releases: tags on publish, duplicates refused, assets up and down, latest, notes, archives', async (t) => {
    const draft = await octokit.repos.createRelease({ owner, repo, tag_name: 'v1.0.0', name: 'One', draft: true });
    t.equal((await failure(octokit.git.getRef({ owner, repo, ref: 'tags/v1.0.0' }))).status, 404, 'a draft has no tag yet');
    t.match(draft.data.upload_url, new RegExp(`^${target.url}/api/uploads/repos/${owner}/${repo}/releases/${draft.data.id}/assets\\{\\?name,label\\}$`));
    const asset = await octokit.repos.uploadReleaseAsset({
      owner,
      repo,
      release_id: draft.data.id,
      name: 'tool.bin',
      data: Buffer.from([1, 2, 3, 0, 255]) as unknown as string,
      url: draft.data.upload_url,
      headers: { 'content-type': 'application/octet-stream' },
    });
    t.equal(asset.status, 201);
    t.equal(asset.data.size, 5);
    t.match(asset.data.digest, /^sha256:[0-9a-f]{64}$/);
    const dup = await failure(
      octokit.repos.uploadReleaseAsset({ owner, repo, release_id: draft.data.id, name: 'tool.bin', data: 'x', url: draft.data.upload_url }),
    );
    t.equal(dup.status, 422);
    const published = await octokit.repos.updateRelease({ owner, repo, release_id: draft.data.id, draft: false });
    t.equal(published.data.draft, false);
    const tag = await octokit.git.getRef({ owner, repo, ref: 'tags/v1.0.0' });
    t.equal(tag.data.object.sha, await head(), 'publishing made the tag on the target');
    t.equal((await octokit.repos.getLatestRelease({ owner, repo })).data.id, draft.data.id);
    const bytes = await octokit.request('GET /repos/{owner}/{repo}/releases/assets/{asset_id}', {
      owner,
      repo,
      asset_id: asset.data.id,
      headers: { accept: 'application/octet-stream' },
    });
    t.same([...new Uint8Array(bytes.data as unknown as ArrayBuffer)], [1, 2, 3, 0, 255], 'the API download follows the signed redirect to the bytes');
    const web = await fetch((await octokit.repos.getReleaseAsset({ owner, repo, asset_id: asset.data.id })).data.browser_download_url);
    t.equal(web.status, 200, 'a public repository downloads without credentials');
    t.same([...new Uint8Array(await web.arrayBuffer())], [1, 2, 3, 0, 255]);
    t.equal((await octokit.repos.getReleaseAsset({ owner, repo, asset_id: asset.data.id })).data.download_count, 2);

    const again = await failure(octokit.repos.createRelease({ owner, repo, tag_name: 'v1.0.0' }));
    t.equal(again.status, 422);
    t.same(again.body.errors, [{ resource: 'Release', code: 'already_exists', field: 'tag_name' }]);
    const badTarget = await failure(octokit.repos.createRelease({ owner, repo, tag_name: 'v9', target_commitish: 'no-such-branch' }));
    t.equal(badTarget.status, 422);

    const { data: pr } = await octokit.pulls.list({ owner, repo, state: 'open' });
    await octokit.pulls.merge({ owner, repo, pull_number: pr[0]!.number });
    const notes = await octokit.repos.generateReleaseNotes({ owner, repo, tag_name: 'v1.1.0' });
    t.equal(notes.data.name, 'v1.1.0');
    t.match(notes.data.body, /^## What's Changed\n\* Behind by @octocat in .*\/octocat\/site\/pull\/\d+\n/);
    t.match(notes.data.body, /\*\*Full Changelog\*\*: .*\/compare\/v1\.0\.0\.\.\.v1\.1\.0$/);
    const pre = await octokit.repos.createRelease({ owner, repo, tag_name: 'v1.1.0-rc1', prerelease: true });
    t.equal((await octokit.repos.getLatestRelease({ owner, repo })).data.id, draft.data.id, 'a prerelease is never the latest');
    t.equal((await octokit.repos.getReleaseByTag({ owner, repo, tag: 'v1.1.0-rc1' })).data.id, pre.data.id);

    const tarball = await octokit.repos.downloadTarballArchive({ owner, repo, ref: 'v1.0.0' });
    const tar = gunzipSync(Buffer.from(tarball.data as ArrayBuffer)).toString('latin1');
    t.match(tar, new RegExp(`${owner}-${repo}-${tag.data.object.sha.slice(0, 7)}/README\\.md`), 'the archive holds the tagged tree');
  });

  await t.test('deployments and environments: real SHAs, auto_merge and required contexts, statuses, auto_inactive', async (t) => {
    const env = await octokit.repos.createOrUpdateEnvironment({ owner, repo, environment_name: 'staging', wait_timer: 5 });
    t.equal(env.data.name, 'staging');
    t.same(
      env.data.protection_rules?.map((r) => r.type),
      ['wait_timer'],
    );
    const main = await head();
    await octokit.repos.createCommitStatus({ owner, repo, sha: main, state: 'pending', context: 'ci' });
    const blocked = await failure(octokit.repos.createDeployment({ owner, repo, ref: 'main', environment: 'staging' }));
    t.equal(blocked.status, 409);
    t.equal(blocked.body.message, 'Conflict: Commit status checks failed for main.');
    t.same(blocked.body.errors[0].contexts, [{ context: 'ci', state: 'pending' }]);
    await octokit.repos.createCommitStatus({ owner, repo, sha: main, state: 'success', context: 'ci' });
    const first = await octokit.repos.createDeployment({ owner, repo, ref: 'main', environment: 'staging', payload: { region: 'eu' } });
    t.equal(first.status, 201);
    const d1 = first.data as { id: number; sha: string; payload: unknown };
    t.equal(d1.sha, main, 'the deployment names the commit its ref resolved to');
    t.same(d1.payload, { region: 'eu' });
    await octokit.repos.createDeploymentStatus({ owner, repo, deployment_id: d1.id, state: 'success', environment_url: 'https://staging.example.com' });

    await octokit.git.createRef({
      owner,
      repo,
      ref: 'refs/heads/old',
      sha: (await octokit.git.getCommit({ owner, repo, commit_sha: main })).data.parents[0]!.sha,
    });
    const autoMerged = await octokit.repos.createDeployment({ owner, repo, ref: 'old', environment: 'staging', required_contexts: [] });
    t.equal(autoMerged.status, 202);
    t.same(autoMerged.data, { message: 'Auto-merged main into old on deployment.' });
    const second = await octokit.repos.createDeployment({ owner, repo, ref: 'old', environment: 'staging', required_contexts: [] });
    const d2 = second.data as { id: number; sha: string };
    t.equal(d2.sha, await head('old'));
    await octokit.repos.createDeploymentStatus({ owner, repo, deployment_id: d2.id, state: 'success' });
    const statuses = await octokit.repos.listDeploymentStatuses({ owner, repo, deployment_id: d1.id });
    t.same(
      statuses.data.map((s) => s.state),
      ['inactive', 'success'],
      'the earlier deployment was made inactive',
    );
    const list = await octokit.repos.listDeployments({ owner, repo, environment: 'staging' });
    t.same(
      list.data.map((d) => d.id),
      [d2.id, d1.id],
    );
    const refused = await failure(octokit.repos.deleteDeployment({ owner, repo, deployment_id: d2.id }));
    t.equal(refused.status, 422, 'an active deployment is not deleted while others exist');
    t.equal((await octokit.repos.deleteDeployment({ owner, repo, deployment_id: d1.id })).status, 204);
    const envs = await octokit.repos.getAllEnvironments({ owner, repo });
    t.same(
      envs.data.environments?.map((e) => e.name),
      ['staging'],
    );
    const g: any = await gql(
      `query { repository(owner: "${owner}", name: "${repo}") { deployments(last: 1, environments: ["staging"]) { nodes { state commitOid environment latestStatus { state } } } environments(first: 5) { nodes { name } } } }`,
    );
    t.same(g.repository.deployments.nodes, [{ state: 'ACTIVE', commitOid: d2.sha, environment: 'staging', latestStatus: { state: 'SUCCESS' } }]);
    t.same(g.repository.environments.nodes, [{ name: 'staging' }]);
  });

  await t.test('GraphQL: releases, latestRelease, release(tagName:); fields the twin does not model are errors', async (t) => {
    const g: any = await gql(
      `query { repository(owner: "${owner}", name: "${repo}") { latestRelease { tagName isLatest releaseAssets(first: 5) { nodes { name size } } } release(tagName: "v1.1.0-rc1") { isPrerelease } releases(first: 5, orderBy: {field: CREATED_AT, direction: DESC}) { totalCount nodes { tagName isDraft } } } }`,
    );
    t.same(g.repository.latestRelease, { tagName: 'v1.0.0', isLatest: true, releaseAssets: { nodes: [{ name: 'tool.bin', size: 5 }] } });
    t.same(g.repository.release, { isPrerelease: true });
    t.equal(g.repository.releases.totalCount, 2);
    const res = await fetch(`${target.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `token ${target.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ repository(owner: "${owner}", name: "${repo}") { name stargazers(first: 1) { totalCount } } }` }),
    });
    const body: any = await res.json();
    t.equal(body.errors?.[0]?.type, 'TWIN_UNSUPPORTED_FIELD', 'an unmodelled field is an error, never an empty value');
    t.same(body.errors[0].path, ['repository', 'stargazers']);
  });

  await t.test('HEAD answers every GET route with its headers and no body', async (t) => {
    for (const path of [`/repos/${owner}/${repo}`, `/repos/${owner}/${repo}/releases`, `/repos/${owner}/${repo}/languages`, '/user', '/api/v3/user']) {
      const res = await fetch(`${target.url}${path}`, { method: 'HEAD', headers: { authorization: `token ${target.apiKey}` } });
      t.equal(res.status, 200, path);
      t.ok(res.headers.get('x-ratelimit-remaining'), `${path}: rate headers`);
      t.equal((await res.arrayBuffer()).byteLength, 0, `${path}: no body`);
    }
  });
}
