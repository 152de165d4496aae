// `twins console`: a one-time sign-in link to the web console of the server of this data directory
// (control-plane/console/sign-in-command.ts), opened in a browser where there is one.

import { resolve } from 'node:path';
import { CliError } from './context.js';
import { recordSignIn, runningServer, whyNotSigning } from './local-server.js';
import type { Handler } from './spec.js';

/** Where `twins serve` listens by default with this environment (HOST, PORT). */
function localUrl(env: NodeJS.ProcessEnv): string {
  const host = !env.HOST || env.HOST === '0.0.0.0' || env.HOST === '::' ? '127.0.0.1' : env.HOST;
  return `http://${host}:${env.PORT || 8080}`;
}

export const consoleSignIn: Handler = async (ctx) => {
  const dataDir = resolve(ctx.io.cwd, ctx.str('data') ?? './.data');
  const refusal = whyNotSigning(dataDir, ctx.io.env.TWINS_IDP);
  if (refusal) throw new CliError(refusal);
  const { runConsoleSignIn } = await import('../console/sign-in-command.js');
  await runConsoleSignIn(
    {
      email: ctx.str('email')!,
      org: ctx.str('org')!,
      role: ctx.str('role') as 'admin' | 'member',
      firstName: ctx.str('first-name'),
      lastName: ctx.str('last-name'),
      sessionSeconds: ctx.int('session'),
      url: ctx.str('url') ?? runningServer(dataDir)?.url ?? localUrl(ctx.io.env),
      dataDir,
      open: !ctx.flag('no-open'),
    },
    { stdout: ctx.io.stdout, stderr: ctx.io.stderr, env: ctx.io.env, platform: process.platform },
  );
  recordSignIn(dataDir, { email: ctx.str('email')!, org: ctx.str('org')! });
};
