// How to point a provider's official SDK at a twin. Each twin's definition carries its snippets as
// templates (TwinDefinition.sdk, served in its catalog entry); this renders one for a twin's URL and
// credential: what `twins twin credential`, the MCP tool `get_twin_credentials` and the console
// show. Pure code with no imports, so the console bundles it too.

/** A catalog entry's `sdk` (twin-runtime/contract.ts TwinSdk, as `GET /twins/catalog` serves it). */
export interface SdkTemplates {
  snippets: readonly { language: string; package: string; code: string }[];
  env: Readonly<Record<string, string>>;
}

export interface SdkSnippet {
  /** npm package of the official SDK. */
  package: string;
  language: string;
  /** The command that installs the SDK. */
  install: string;
  code: string;
  /** Shell variables (`export NAME=value`) carrying the URL and the credential. */
  env: Record<string, string>;
}

/** What stands for a credential field not shown yet (the console renders before the key is revealed). */
export const HIDDEN = (field: string) => `<${field}: show it above>`;

/** A single-quoted JavaScript string literal. */
function js(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}

const PLACEHOLDER = /\{\{([a-z_]+)(?::([^}]*))?\}\}/g;

/**
 * The value of each `{{name}}`: the URL's parts, or a field of the credential (`api_key`,
 * `account_sid`, …); a field the credential lacks is shown as HIDDEN(name).
 */
function placeholderValue(name: string, suffix: string | undefined, url: URL, base: string, credential: Readonly<Record<string, string | undefined>>): string {
  switch (name) {
    case 'url':
      return base + (suffix ?? '');
    case 'host':
      return url.hostname;
    case 'protocol':
      return url.protocol.replace(':', '');
    case 'port':
      return url.port || (url.protocol === 'https:' ? '443' : '80');
    default:
      return credential[name] ?? HIDDEN(name);
  }
}

/**
 * For a twin that names no SDK: the provider API over `fetch`, the key as a bearer token, and
 * `<SLUG>_API_KEY` / `<SLUG>_API_URL`.
 */
export function genericSdk(slug: string): SdkTemplates {
  const prefix = slug.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
  return {
    snippets: [
      {
        language: 'JavaScript',
        package: '',
        code: "const res = await fetch({{url:/}}, { headers: { authorization: 'Bearer ' + {{api_key}} } });",
      },
    ],
    env: { [`${prefix}_API_KEY`]: '{{api_key}}', [`${prefix}_API_URL`]: '{{url}}' },
  };
}

/**
 * Fill a twin's SDK templates for its URL and credential (the credential endpoint's answer: `api_key`
 * and the other halves). JavaScript is the language shown; `undefined` when the twin has none.
 */
export function renderSdkSnippet(
  templates: SdkTemplates | null | undefined,
  twinUrl: string,
  credential: Readonly<Record<string, string | undefined>>,
  language = 'JavaScript',
): SdkSnippet | undefined {
  const template = templates?.snippets.find((s) => s.language === language);
  if (!templates || !template) return undefined;
  const base = twinUrl.replace(/\/+$/, '');
  const url = new URL(base);
  const code = template.code.replace(PLACEHOLDER, (_m, name: string, suffix?: string) => {
    const value = placeholderValue(name, suffix, url, base, credential);
    return name === 'port' ? value : js(value);
  });
  const env = Object.fromEntries(
    Object.entries(templates.env).map(([k, v]) => [
      k,
      v.replace(PLACEHOLDER, (_m, name: string, suffix?: string) => placeholderValue(name, suffix, url, base, credential)),
    ]),
  );
  const install = template.package ? `npm install ${template.package}` : '';
  return { package: template.package, language: template.language, install, code, env };
}
