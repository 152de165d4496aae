// A ready-to-paste snippet pointing each provider's official SDK at a twin: the same constructor
// options the README gives (the SDKs take a base URL, or host/port/protocol for Stripe).

export const KEY_PLACEHOLDER = '<key: show it above>';

/** A single-quoted JavaScript string literal. */
function js(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}

/** A single-quoted shell word. */
function sh(s: string): string {
  return `'${s.replace(/'/g, "'\\''")}'`;
}

export function sdkSnippet(slug: string, url: string, key: string | undefined): { language: string; install: string; code: string } {
  const k = js(key ?? KEY_PLACEHOLDER);
  const u = new URL(url);
  const base = url.replace(/\/+$/, '');
  switch (slug) {
    case 'stripe': {
      const port = u.port || (u.protocol === 'https:' ? '443' : '80');
      return {
        language: 'JavaScript',
        install: 'npm install stripe',
        code: [
          "import Stripe from 'stripe';",
          '',
          `const stripe = new Stripe(${k}, {`,
          `  host: ${js(u.hostname)},`,
          `  port: ${port},`,
          `  protocol: ${js(u.protocol.replace(':', ''))},`,
          '});',
          "const customer = await stripe.customers.create({ email: 'jenny@example.com' });",
        ].join('\n'),
      };
    }
    case 'github':
      return {
        language: 'JavaScript',
        install: 'npm install @octokit/rest',
        code: [
          "import { Octokit } from '@octokit/rest';",
          '',
          `const octokit = new Octokit({ auth: ${k}, baseUrl: ${js(base)} });`,
          'const { data: me } = await octokit.rest.users.getAuthenticated();',
        ].join('\n'),
      };
    case 'slack':
      return {
        language: 'JavaScript',
        install: 'npm install @slack/web-api',
        code: [
          "import { WebClient } from '@slack/web-api';",
          '',
          `const slack = new WebClient(${k}, { slackApiUrl: ${js(base + '/api/')} });`,
          "await slack.chat.postMessage({ channel: '#general', text: 'Hello from a twin' });",
        ].join('\n'),
      };
    default:
      return {
        language: 'shell',
        install: '',
        code: `curl -s ${sh(base + '/')} -H ${sh('Authorization: Bearer ' + (key ?? KEY_PLACEHOLDER))}`,
      };
  }
}
