// `twins token`: an access token signed by the local identity provider of a server's data directory.

import { resolve } from 'node:path';
import { CliError } from './context.js';
import { whyNotSigning } from './local-server.js';
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
  if (ctx.json) ctx.io.stdout(JSON.stringify({ access_token: jwt, token_type: 'Bearer', expires_in: ttlSeconds }, null, 2) + '\n');
  else ctx.io.stdout(jwt + '\n');
};
