// Vaults (beta) through @anthropic-ai/sdk's `beta.vaults`: a vault and its MCP credentials, whose
// secrets are never answered; update with a rotated token, archive, delete; refusals.

import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import { startTwin } from '../../helpers/twin.js';

const twin = await startTwin('anthropic');
t.teardown(() => twin.close());
const client = new Anthropic({ apiKey: twin.apiKey, baseURL: twin.url, maxRetries: 0 });
const vaults = client.beta.vaults;

t.test('credentials keep their secrets', async (t) => {
  const vault = await vaults.create({ display_name: 'Team tools', metadata: { team: 'support' } });
  t.match(vault, { type: 'vault', display_name: 'Team tools', archived_at: null });
  t.match(vault.id, /^vlt_011C/);
  const cred = await vaults.credentials.create(vault.id, {
    display_name: 'Linear',
    auth: { type: 'static_bearer', token: 'lin_api_secret', mcp_server_url: 'https://mcp.linear.app/mcp' },
  });
  t.match(cred, { type: 'vault_credential', vault_id: vault.id, auth: { type: 'static_bearer', mcp_server_url: 'https://mcp.linear.app/mcp' } });
  t.notOk(JSON.stringify(cred).includes('lin_api_secret'), 'the token is not answered');
  const oauth = await vaults.credentials.create(vault.id, {
    auth: { type: 'mcp_oauth', access_token: 'oauth_secret', mcp_server_url: 'https://mcp.notion.com/mcp', expires_at: '2027-01-01T00:00:00Z' },
  });
  t.match(oauth.auth, { type: 'mcp_oauth', expires_at: '2027-01-01T00:00:00Z' });
  const fetched = await vaults.credentials.retrieve(cred.id, { vault_id: vault.id });
  t.same(fetched, cred);
  t.notOk(JSON.stringify(fetched).includes('secret'), 'nor on retrieval');

  const rotated = await vaults.credentials.update(cred.id, {
    vault_id: vault.id,
    auth: { type: 'static_bearer', token: 'lin_api_new' },
    metadata: { rotated: 'yes' },
  });
  t.match(rotated.metadata, { rotated: 'yes' });
  const switched = await vaults.credentials.update(cred.id, { vault_id: vault.id, auth: { type: 'mcp_oauth', access_token: 'x' } }).catch((e: unknown) => e);
  t.ok(switched instanceof Anthropic.BadRequestError, 'a credential keeps its auth type');

  t.ok((await vaults.credentials.archive(oauth.id, { vault_id: vault.id })).archived_at);
  t.same(
    (await vaults.credentials.list(vault.id)).data.map((c) => c.id),
    [cred.id],
    'archived credentials are left out',
  );
  t.same(await vaults.credentials.delete(cred.id, { vault_id: vault.id }), { id: cred.id, type: 'vault_credential_deleted' });

  const renamed = await vaults.update(vault.id, { display_name: 'Tools', metadata: { team: null, tier: 'gold' } });
  t.same(renamed.metadata, { tier: 'gold' });
  t.ok((await vaults.archive(vault.id)).archived_at);
  const late = await vaults.credentials
    .create(vault.id, { auth: { type: 'static_bearer', token: 't', mcp_server_url: 'https://a.example/mcp' } })
    .catch((e: unknown) => e);
  t.ok(late instanceof Anthropic.BadRequestError, 'an archived vault takes no credentials');
  t.ok((await vaults.list({ include_archived: true })).data.some((v) => v.id === vault.id));
  t.same(await vaults.delete(vault.id), { id: vault.id, type: 'vault_deleted' });
});

t.test('refusals', async (t) => {
  const vault = await vaults.create({ display_name: 'X' });
  const env = await vaults.credentials
    .create(vault.id, {
      auth: { type: 'environment_variable', secret_name: 'K', secret_value: 'v', networking: { type: 'unrestricted' } },
    } as Anthropic.Beta.Vaults.CredentialCreateParams)
    .catch((e: unknown) => e);
  t.equal((env as InstanceType<typeof Anthropic.APIError>).headers?.get('twin-fidelity'), 'unsupported', 'environment-variable credentials are not simulated');
  const badUrl = await vaults.credentials
    .create(vault.id, { auth: { type: 'static_bearer', token: 't', mcp_server_url: 'not a url' } })
    .catch((e: unknown) => e);
  t.ok(badUrl instanceof Anthropic.BadRequestError);
  const missing = await vaults.retrieve('vlt_missing').catch((e: unknown) => e);
  t.ok(missing instanceof Anthropic.NotFoundError);
});
