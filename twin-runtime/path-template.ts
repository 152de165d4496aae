// Path templates, the one spelling every part of Twins uses for a route: `/v1/customers/{customer}`.
// A `{name}` segment is one path segment (it never spans `/`); a last `{+name}` takes the rest of
// the path, slashes included (GitHub's `contents/{+path}`, `git/ref/{+ref}`). The twin router
// (router.ts, find-my-way), the control plane's matcher language and its 405 detection all read
// templates through this module.

export type TemplatePart =
  | { kind: 'literal'; text: string }
  | { kind: 'param'; name: string }
  /** `{+name}`: the rest of the path (only last). */
  | { kind: 'rest'; name: string };

const TOKEN = /\{(\+?)([^{}]+)\}/g;

/** The parts of a template, in order. Throws for a `{+name}` that is not last. */
export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let at = 0;
  for (const m of template.matchAll(TOKEN)) {
    if (m.index! > at) parts.push({ kind: 'literal', text: template.slice(at, m.index) });
    parts.push(m[1] ? { kind: 'rest', name: m[2]! } : { kind: 'param', name: m[2]! });
    at = m.index! + m[0].length;
  }
  if (at < template.length) parts.push({ kind: 'literal', text: template.slice(at) });
  const rest = parts.findIndex((p) => p.kind === 'rest');
  if (rest !== -1 && rest !== parts.length - 1) throw new Error(`'{+…}' must end the template: ${template}`);
  return parts;
}

/**
 * The template with its parameter names dropped (`/v1/customers/{}`), so two spellings of one route
 * compare equal (`{id}` and `{customer}`, `{path}` and `{+path}`).
 */
export function templateShape(template: string): string {
  return template.replace(TOKEN, '{}');
}

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\]/g;

/**
 * The template as a regular expression with one capture per parameter, in order. `{name}` is
 * `([^/]+)`, `{+name}` is `(.+)`; with `trailingSlash` one trailing `/` is accepted too (what the
 * matcher language does with logged paths).
 */
export function templateRegExp(template: string, opts: { trailingSlash?: boolean } = {}): { regex: RegExp; names: string[] } {
  const names: string[] = [];
  let source = '';
  for (const p of parseTemplate(template)) {
    if (p.kind === 'literal') source += p.text.replace(REGEX_SPECIAL, (c) => '\\' + c);
    else {
      names.push(p.name);
      source += p.kind === 'param' ? '([^/]+)' : '(.+)';
    }
  }
  return { regex: new RegExp(`^${source}${opts.trailingSlash ? '/?' : ''}$`), names };
}

/**
 * The template in find-my-way's spelling: `{name}` → `:p0`, `:p1`… by position (provider names such
 * as `{enterprise-team}` are not valid find-my-way names), `{+name}` → `*`; a `:` in a literal is
 * doubled (find-my-way's escape). `names` are the template's names in the same order.
 */
export function findMyWayPath(template: string): { path: string; names: string[] } {
  const names: string[] = [];
  const path = parseTemplate(template)
    .map((p) => {
      if (p.kind === 'literal') return p.text.replaceAll(':', '::');
      names.push(p.name);
      return p.kind === 'param' ? `:p${names.length - 1}` : '*';
    })
    .join('');
  return { path, names };
}

/** A find-my-way / Fastify path (`/environments/:id`, `/docs/*`) as a template. */
export function templateFromFindMyWay(path: string): string {
  return (
    path
      .replace(/::/g, '\u0000')
      .replace(/:([A-Za-z0-9_]+)/g, '{$1}')
      .replace(/\*$/, '{+wildcard}')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is the placeholder this function put in for an escaped colon
      .replace(/\u0000/g, ':')
  );
}

/** `path` without the first of `prefixes` it lies under (`/api/v3` alone is `/`), or undefined. */
export function withoutPrefix(prefixes: readonly string[], path: string): { prefix: string; rest: string } | undefined {
  for (const prefix of prefixes) {
    if (path === prefix) return { prefix, rest: '/' };
    if (path.startsWith(prefix) && path.charCodeAt(prefix.length) === 47 /* / */) return { prefix, rest: path.slice(prefix.length) };
  }
  return undefined;
}
