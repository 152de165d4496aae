// How to point each provider's official SDK at a twin: the snippet and the shell variables the MCP
// tool `get_twin_credentials` and `twins twin credential` hand out. A twin not listed here gets the
// generic advice; a new twin adds its entry.

import { ghHostFor } from '../../twin-runtime/own-host.js';

export interface SdkSnippet {
  /** npm package of the official SDK. */
  package: string;
  language: 'javascript';
  code: string;
  /** Shell variables (`export NAME=value`) carrying the URL and the key. */
  env: Record<string, string>;
}

type Entry = (url: URL, key: string, base: string) => SdkSnippet;

const q = (s: string) => `'${s.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

const SNIPPETS: Record<string, Entry> = {
  stripe: (url, key, base) => {
    const protocol = url.protocol.replace(':', '');
    const port = url.port || (protocol === 'https' ? '443' : '80');
    return {
      package: 'stripe',
      language: 'javascript',
      code: [
        "import Stripe from 'stripe';",
        `const stripe = new Stripe(${q(key)}, { host: ${q(url.hostname)}, port: ${port}, protocol: ${q(protocol)} });`,
        "const customer = await stripe.customers.create({ email: 'ada@example.com' });",
      ].join('\n'),
      env: { STRIPE_SECRET_KEY: key, STRIPE_API_URL: base },
    };
  },
  github: (_url, key, base) => ({
    package: '@octokit/rest',
    language: 'javascript',
    code: [
      "import { Octokit } from '@octokit/rest';",
      `const octokit = new Octokit({ auth: ${q(key)}, baseUrl: ${q(base)} });`,
      'const { data: me } = await octokit.rest.users.getAuthenticated();',
    ].join('\n'),
    // `gh`: GH_HOST is the twin's own host (README "gh inside a clone"; trust the CA with SSL_CERT_FILE and GIT_SSL_CAINFO).
    env: { GITHUB_TOKEN: key, GITHUB_API_URL: base, GH_HOST: ghHostFor(base), GH_ENTERPRISE_TOKEN: key },
  }),
  slack: (_url, key, base) => ({
    package: '@slack/web-api',
    language: 'javascript',
    code: [
      "import { WebClient } from '@slack/web-api';",
      `const slack = new WebClient(${q(key)}, { slackApiUrl: ${q(base + '/api/')} });`,
      'const auth = await slack.auth.test();',
    ].join('\n'),
    env: { SLACK_BOT_TOKEN: key, SLACK_API_URL: base + '/api/' },
  }),
};

export function sdkSnippet(slug: string, twinUrl: string, key: string): SdkSnippet {
  const base = twinUrl.replace(/\/+$/, '');
  const entry = SNIPPETS[slug];
  if (entry) return entry(new URL(base), key, base);
  const prefix = slug.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
  return {
    package: `the official ${slug} SDK`,
    language: 'javascript',
    code: `// Give the ${slug} SDK the key ${q(key)} as its API key and ${q(base)} as its base URL.`,
    env: { [`${prefix}_API_KEY`]: key, [`${prefix}_API_URL`]: base },
  };
}
