// Signed out: under the embedded identity provider, how to get a sign-in link; under OIDC, a
// button that goes to the identity provider. Never a field for an API key.

import { useEffect } from 'preact/hooks';
import type { SignInOptions } from '../lib/api.js';
import { startOidcSignIn } from '../lib/session.js';
import { CodeBlock, ErrorNote, Loading, useAction, useLoad } from '../components/ui.js';

async function options(): Promise<SignInOptions> {
  const res = await fetch('/auth/sign-in', { headers: { accept: 'application/json' } });
  const body = (await res.json().catch(() => ({}))) as SignInOptions & { detail?: string };
  if (!res.ok) throw new Error(typeof body.detail === 'string' ? body.detail : `status ${res.status}`);
  return body;
}

export function SignInPage({ error }: { error?: string }) {
  const opts = useLoad(options, []);
  const go = useAction(async (o: SignInOptions) => {
    await startOidcSignIn({ authorization_endpoint: o.authorization_endpoint!, client_id: o.client_id!, scope: o.scope, audience: o.audience });
  });
  useEffect(() => {
    document.title = 'Sign in · Twins console';
  }, []);
  const o = opts.data;
  return (
    <main id="main" class="sign-in">
      <h1>Sign in to Twins</h1>
      {error && <ErrorNote error={new Error(error)} />}
      {opts.loading && !o && <Loading what="the sign-in options" />}
      <ErrorNote error={opts.error} />
      {o?.mode === 'local' && (
        <>
          <p>This control plane runs the embedded identity provider. Ask it for a one-time sign-in link, from the folder the server runs in:</p>
          <CodeBlock label="Sign-in command" text="twins console --email you@example.com --org your-org --role admin" />
          <p class="muted">The link works once, for two minutes, and opens this page signed in. The session lasts until you sign out or close the tab.</p>
        </>
      )}
      {o?.mode === 'oidc' && o.authorization_endpoint && (
        <>
          <p>Sign in with your organization's identity provider.</p>
          <button type="button" class="primary" disabled={go.busy} onClick={() => go.run(o)}>
            Continue to the identity provider
          </button>
          <ErrorNote error={go.error} />
        </>
      )}
      {o?.mode === 'oidc' && !o.authorization_endpoint && <p role="alert">{o.detail}</p>}
    </main>
  );
}
