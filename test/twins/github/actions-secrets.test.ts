// Actions secrets and variables with @octokit/rest, standalone and through the recording gateway:
// a secret sealed with libsodium-wrappers against the twin's public key (as GitHub's docs do it) is
// stored and listed, never answered; a box sealed for another key, a stale key id and names GitHub
// refuses are 422; organization secrets and variables keep their visibility and chosen
// repositories; variables are created, renamed, listed and deleted.

import t, { type Test } from 'tap';
import sodium from 'libsodium-wrappers';
import { failure, startGitHubVia } from './setup.js';

await sodium.ready;

/** What GitHub's docs tell a client to do: seal the value with the scope's public key. */
function seal(value: string, key: string): string {
  const sealed = sodium.crypto_box_seal(sodium.from_string(value), sodium.from_base64(key, sodium.base64_variants.ORIGINAL));
  return sodium.to_base64(sealed, sodium.base64_variants.ORIGINAL);
}

for (const via of ['standalone', 'gateway'] as const) {
  await t.test(via, (t) => scenario(t, via));
}

async function scenario(t: Test, via: 'standalone' | 'gateway'): Promise<void> {
  const { octokit, close } = await startGitHubVia(via);
  t.teardown(close);
  const owner = 'octocat';
  const repo = 'deploys';
  await octokit.repos.createForAuthenticatedUser({ name: repo });

  await t.test('a sealed secret is stored and listed, its value never answered', async (t) => {
    const { data: key } = await octokit.actions.getRepoPublicKey({ owner, repo });
    t.match(key, { key_id: /^\d+$/, key: /^[A-Za-z0-9+/]{43}=$/ }, 'a 32-byte public key in base64 and a numeric key id');
    t.same((await octokit.actions.getRepoPublicKey({ owner, repo })).data, key, 'the same key until it is rotated');
    const created = await octokit.actions.createOrUpdateRepoSecret({
      owner,
      repo,
      secret_name: 'deploy_token',
      encrypted_value: seal('s3cr3t-value', key.key),
      key_id: key.key_id,
    });
    t.equal(created.status, 201);
    const updated = await octokit.actions.createOrUpdateRepoSecret({
      owner,
      repo,
      secret_name: 'DEPLOY_TOKEN',
      encrypted_value: seal('new-value', key.key),
      key_id: key.key_id,
    });
    t.equal(updated.status, 204, 'names are not case-sensitive: the second PUT updates');
    const listed = await octokit.actions.listRepoSecrets({ owner, repo });
    t.equal(listed.data.total_count, 1);
    t.match(listed.data.secrets, [{ name: 'DEPLOY_TOKEN', created_at: String, updated_at: String }]);
    const one = await octokit.actions.getRepoSecret({ owner, repo, secret_name: 'deploy_token' });
    t.same(Object.keys(one.data).sort(), ['created_at', 'name', 'updated_at']);
    t.notMatch(JSON.stringify([listed.data, one.data]), /new-value|s3cr3t/, 'the value is never answered');
    t.equal((await octokit.actions.deleteRepoSecret({ owner, repo, secret_name: 'DEPLOY_TOKEN' })).status, 204);
    t.equal((await failure(octokit.actions.getRepoSecret({ owner, repo, secret_name: 'DEPLOY_TOKEN' }))).status, 404);
  });

  await t.test('refused as GitHub refuses: another key, a stale key id, names it does not take', async (t) => {
    const { data: key } = await octokit.actions.getRepoPublicKey({ owner, repo });
    const other = sodium.crypto_box_keypair();
    const foreign = sodium.to_base64(sodium.crypto_box_seal(sodium.from_string('x'), other.publicKey), sodium.base64_variants.ORIGINAL);
    const wrongBox = await failure(octokit.actions.createOrUpdateRepoSecret({ owner, repo, secret_name: 'A', encrypted_value: foreign, key_id: key.key_id }));
    t.equal(wrongBox.status, 422);
    t.match(wrongBox.body, { message: 'Validation Failed', errors: [{ field: 'encrypted_value', code: 'invalid' }] });
    const staleId = await failure(
      octokit.actions.createOrUpdateRepoSecret({ owner, repo, secret_name: 'A', encrypted_value: seal('x', key.key), key_id: '1' }),
    );
    t.equal(staleId.status, 422);
    for (const name of ['GITHUB_TOKEN', '1ST', 'WITH-DASH']) {
      const bad = await failure(
        octokit.actions.createOrUpdateRepoSecret({ owner, repo, secret_name: name, encrypted_value: seal('x', key.key), key_id: key.key_id }),
      );
      t.equal(bad.status, 422, name);
    }
    t.equal((await octokit.actions.listRepoSecrets({ owner, repo })).data.total_count, 0, 'nothing refused was kept');
  });

  await t.test('variables: create, read, rename, list, delete; a duplicate is 409', async (t) => {
    t.equal((await octokit.actions.createRepoVariable({ owner, repo, name: 'region', value: 'eu-west-1' })).status, 201);
    t.equal((await failure(octokit.actions.createRepoVariable({ owner, repo, name: 'REGION', value: 'x' }))).status, 409);
    t.match((await octokit.actions.getRepoVariable({ owner, repo, name: 'REGION' })).data, { name: 'REGION', value: 'eu-west-1' });
    // The body's `name` renames it (octokit's path parameter has the same name, so the body goes as `data`).
    const renamed = await octokit.request('PATCH /repos/{owner}/{repo}/actions/variables/{name}', {
      owner,
      repo,
      name: 'REGION',
      data: { name: 'aws_region', value: 'us-east-1' },
    });
    t.equal(renamed.status, 204);
    const listed = (await octokit.actions.listRepoVariables({ owner, repo })).data;
    t.equal(listed.total_count, 1);
    t.match(listed.variables[0], { name: 'AWS_REGION', value: 'us-east-1' });
    t.equal((await failure(octokit.actions.getRepoVariable({ owner, repo, name: 'REGION' }))).status, 404, 'the old name is gone');
    t.equal((await octokit.actions.deleteRepoVariable({ owner, repo, name: listed.variables[0]!.name })).status, 204);
    t.equal((await octokit.actions.listRepoVariables({ owner, repo })).data.total_count, 0);
  });

  await t.test('organization secrets and variables keep their visibility and chosen repositories', async (t) => {
    const org = 'octo-org';
    const other = (await octokit.repos.createInOrg({ org, name: 'service' })).data;
    const { data: key } = await octokit.actions.getOrgPublicKey({ org });
    const repoKey = (await octokit.actions.getRepoPublicKey({ owner, repo })).data;
    t.not(key.key, repoKey.key, 'each scope has its own key pair');
    await octokit.actions.createOrUpdateOrgSecret({
      org,
      secret_name: 'NPM_TOKEN',
      encrypted_value: seal('npm-secret', key.key),
      key_id: key.key_id,
      visibility: 'selected',
      selected_repository_ids: [other.id],
    });
    t.match((await octokit.actions.getOrgSecret({ org, secret_name: 'NPM_TOKEN' })).data, {
      name: 'NPM_TOKEN',
      visibility: 'selected',
      selected_repositories_url: /\/orgs\/octo-org\/actions\/secrets\/NPM_TOKEN\/repositories$/,
    });
    const chosen = (await octokit.actions.listSelectedReposForOrgSecret({ org, secret_name: 'NPM_TOKEN' })).data;
    t.equal(chosen.total_count, 1);
    t.equal(chosen.repositories[0]!.full_name, 'octo-org/service');
    await octokit.actions.removeSelectedRepoFromOrgSecret({ org, secret_name: 'NPM_TOKEN', repository_id: other.id });
    t.equal((await octokit.actions.listSelectedReposForOrgSecret({ org, secret_name: 'NPM_TOKEN' })).data.total_count, 0);
    await octokit.actions.createOrgVariable({ org, name: 'STAGE', value: 'prod', visibility: 'all' });
    t.match((await octokit.actions.listOrgVariables({ org })).data, { total_count: 1, variables: [{ name: 'STAGE', value: 'prod', visibility: 'all' }] });
  });

  await t.test('environment secrets and variables: their own key pair, only for an environment that exists', async (t) => {
    const missing = await octokit.actions.getEnvironmentPublicKey({ owner, repo, environment_name: 'production' }).catch((e) => e);
    t.equal(missing.status, 404, 'no environment yet');
    await octokit.repos.createOrUpdateEnvironment({ owner, repo, environment_name: 'production' });
    const { data: key } = await octokit.actions.getEnvironmentPublicKey({ owner, repo, environment_name: 'production' });
    const repoKey = (await octokit.actions.getRepoPublicKey({ owner, repo })).data;
    t.not(key.key, repoKey.key, 'the environment has its own key pair');
    const made = await octokit.actions.createOrUpdateEnvironmentSecret({
      owner,
      repo,
      environment_name: 'production',
      secret_name: 'deploy_key',
      encrypted_value: seal('prod-key', key.key),
      key_id: key.key_id,
    });
    t.equal(made.status, 201);
    const listed = (await octokit.actions.listEnvironmentSecrets({ owner, repo, environment_name: 'production' })).data;
    t.equal(listed.total_count, 1);
    t.equal(listed.secrets[0]!.name, 'DEPLOY_KEY');
    t.notOk('value' in listed.secrets[0]! || 'encrypted_value' in listed.secrets[0]!, 'never answered');
    const wrongKey = await octokit.actions
      .createOrUpdateEnvironmentSecret({
        owner,
        repo,
        environment_name: 'production',
        secret_name: 'X',
        encrypted_value: seal('x', repoKey.key),
        key_id: repoKey.key_id,
      })
      .catch((e) => e);
    t.equal(wrongKey.status, 422, "the repository's key is not the environment's");
    t.equal(
      (await octokit.actions.listRepoSecrets({ owner, repo })).data.secrets.some((x) => x.name === 'DEPLOY_KEY'),
      false,
      'the repository does not see it',
    );

    await octokit.actions.createEnvironmentVariable({ owner, repo, environment_name: 'production', name: 'region', value: 'eu-west-1' });
    t.match((await octokit.actions.getEnvironmentVariable({ owner, repo, environment_name: 'production', name: 'REGION' })).data, {
      name: 'REGION',
      value: 'eu-west-1',
    });
    await octokit.actions.deleteEnvironmentSecret({ owner, repo, environment_name: 'production', secret_name: 'DEPLOY_KEY' });
    t.equal((await octokit.actions.listEnvironmentSecrets({ owner, repo, environment_name: 'production' })).data.total_count, 0);
  });
}
