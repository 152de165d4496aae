// `twins token`: an access token signed by the local identity provider of a server's data directory.

import { join, resolve } from 'node:path';
import { CliError } from './context.js';
import { recordSignIn, whyNotSigning } from './local-server.js';
import type { Handler } from './spec.js';

export const token: Handler = async (ctx) => {
  const dataDir = resolve(ctx.io.cwd, ctx.str('data') ?? './.data');
  const refusal = whyNotSigning(dataDir, ctx.io.env.TWINS_IDP);
  if (refusal) throw new CliError(refusal);
  const { loadLocalKeys, mintLocalToken } = await import('../auth/local-idp.js');
  const keys = await loadLocalKeys(dataDir);
  const ttlSeconds = ctx.int('ttl') ?? 3600;
  const jwt = await mintLocalToken(keys, {
    email: ctx.str('email')!,
    org: ctx.str('org')!,
    role: ctx.str('role') as 'admin' | 'member',
    firstName: ctx.str('first-name'),
    lastName: ctx.str('last-name'),
    ttlSeconds,
  });
  // The local identity provider vouches for its tokens: the holder is a member from now on (an
  // invitation for them answers 409), unless an admin removed them.
  await registerMember(dataDir, jwt, ctx.io.env);
  recordSignIn(dataDir, { email: ctx.str('email')!, org: ctx.str('org')! });
  if (ctx.json) ctx.io.stdout(JSON.stringify({ access_token: jwt, token_type: 'Bearer', expires_in: ttlSeconds }, null, 2) + '\n');
  else ctx.io.stdout(jwt + '\n');
};

async function registerMember(dataDir: string, jwt: string, env: NodeJS.ProcessEnv): Promise<void> {
  const [{ decodeJwt }, { readClaims }, { openDatabase }, { IdentityStore }, { loadConfig }] = await Promise.all([
    import('jose'),
    import('../auth/access-tokens.js'),
    import('../store/database.js'),
    import('../store/identity.js'),
    import('../config.js'),
  ]);
  const claims = readClaims(decodeJwt(jwt));
  if (!claims) return;
  process.umask(0o077);
  const db = openDatabase(join(dataDir, 'control-plane.sqlite'));
  try {
    new IdentityStore(db, loadConfig(env).defaultPlan).registerLocalMember(claims);
  } finally {
    db.close();
  }
}
