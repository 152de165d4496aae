// GitHub's search query syntax over the twin's own state: free words (quoted phrases kept whole),
// `key:value` qualifiers (`-key:value` negates), ranges as GitHub writes them (`>10`, `>=10`, `<10`,
// `<=10`, `10..20`, `10..*`, dates `2026-01-01..2026-02-01`), and the limits the API enforces (256
// characters of words, five AND/OR/NOT operators, the first 1,000 results). Repositories, code (the
// default branch's files), commits (the default branch's history) and users are searched here; issues
// and pull requests in issues.ts with the same parser.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { type Json, simpleAccount } from './accounts.js';
import { API, WEB } from './identity.js';
import { branchHead, commitFiles, getBlob, history, readBlob, readmeOf, restCommit } from './git.js';

export interface Qualifier {
  key: string;
  value: string;
  negate: boolean;
}

export interface SearchQuery {
  qualifiers: Qualifier[];
  /** Free words and quoted phrases, lower case. */
  words: string[];
}

/** Why GitHub refuses a query (a 422 "Validation Failed" with this message), or undefined. */
export class SearchQueryError extends Error {}

/** At most this many results are reachable through pages (`Only the first 1000 search results are available`). */
export const SEARCH_RESULT_LIMIT = 1000;
/** Files larger than this are not in GitHub's code index. */
export const CODE_INDEX_MAX_BYTES = 384 * 1024;

/** Split a search query into qualifiers and free words (quotes group: label:"help wanted", "two words"). */
export function parseSearchQuery(q: string): SearchQuery {
  const qualifiers: Qualifier[] = [];
  const words: string[] = [];
  let operators = 0;
  let wordChars = 0;
  for (const m of q.matchAll(/(-?[\w.-]+:"[^"]*"|-?[\w.-]+:\S+|"[^"]*"|\S+)/g)) {
    const token = m[0];
    const qualifier = /^(-?)([\w.-]+):(.*)$/.exec(token);
    if (qualifier) {
      qualifiers.push({ negate: qualifier[1] === '-', key: qualifier[2]!.toLowerCase(), value: qualifier[3]!.replace(/^"|"$/g, '') });
      continue;
    }
    if (token === 'AND' || token === 'OR' || token === 'NOT') {
      operators++;
      continue;
    }
    const word = token.replace(/^"|"$/g, '').toLowerCase();
    wordChars += word.length;
    if (word) words.push(word);
  }
  if (wordChars > 256) throw new SearchQueryError('The search is longer than 256 characters.');
  if (operators > 5) throw new SearchQueryError('The search contains more than 5 AND / OR / NOT operators.');
  return { qualifiers, words };
}

/** Qualifiers of one kind. */
export function qualifiersOf(query: SearchQuery, ...keys: string[]): Qualifier[] {
  return query.qualifiers.filter((q) => keys.includes(q.key));
}

/**
 * Whether `actual` (a number, or an ISO date-time compared as a date) satisfies GitHub's range
 * syntax; undefined when `spec` is not a range GitHub would read (the qualifier is then ignored).
 */
export function inRange(actual: number | string | null | undefined, spec: string): boolean | undefined {
  if (actual === null || actual === undefined) return false;
  const isDate = typeof actual === 'string';
  const parse = (s: string): number | undefined => {
    if (s === '*') return undefined;
    const v = isDate ? Date.parse(s) : Number(s);
    return Number.isNaN(v) ? Number.NaN : v;
  };
  const value = isDate ? Date.parse(actual) : actual;
  // A date without a time covers the whole day: `created:2026-01-05` and `<=2026-01-05` include its evening.
  const dayEnd = (s: string, v: number) => (isDate && /^\d{4}-\d{2}-\d{2}$/.test(s) ? v + 86_400_000 - 1 : v);
  const range = /^(.+)\.\.(.+)$/.exec(spec);
  if (range) {
    const lo = parse(range[1]!);
    const hi = parse(range[2]!);
    if (Number.isNaN(lo) || Number.isNaN(hi)) return undefined;
    return (lo === undefined || value >= lo) && (hi === undefined || value <= dayEnd(range[2]!, hi));
  }
  const op = /^(>=|<=|>|<)?(.+)$/.exec(spec)!;
  const bound = parse(op[2]!);
  if (bound === undefined || Number.isNaN(bound)) return undefined;
  switch (op[1]) {
    case '>':
      return value > dayEnd(op[2]!, bound);
    case '>=':
      return value >= bound;
    case '<':
      return value < bound;
    case '<=':
      return value <= dayEnd(op[2]!, bound);
    default:
      return isDate && /^\d{4}-\d{2}-\d{2}$/.test(op[2]!) ? value >= bound && value <= dayEnd(op[2]!, bound) : value === bound;
  }
}

/** Every qualifier holds (a qualifier `test` cannot read is ignored, as GitHub ignores unknown ones). */
export function allHold(query: SearchQuery, test: (q: Qualifier) => boolean | undefined): boolean {
  return query.qualifiers.every((q) => {
    const hit = test(q);
    return hit === undefined ? true : q.negate ? !hit : hit;
  });
}

/** Repositories the `repo:`, `org:` and `user:` qualifiers admit (all when there are none). */
export function scopedRepositories(ctx: TwinContext, query: SearchQuery): Json[] {
  const repoNames = qualifiersOf(query, 'repo')
    .filter((q) => !q.negate)
    .map((q) => q.value.toLowerCase());
  const owners = qualifiersOf(query, 'org', 'user')
    .filter((q) => !q.negate)
    .map((q) => q.value.toLowerCase());
  const excluded = new Set(
    qualifiersOf(query, 'repo')
      .filter((q) => q.negate)
      .map((q) => q.value.toLowerCase()),
  );
  return ctx.store
    .list<Json>('repository')
    .filter(
      (r) =>
        (repoNames.length === 0 || repoNames.includes(r.full_name.toLowerCase())) &&
        (owners.length === 0 || owners.includes(r.owner.login.toLowerCase())) &&
        !excluded.has(r.full_name.toLowerCase()),
    );
}

/** The repository as search results embed it (`minimal-repository`). */
export function searchRepository(repo: Json): Json {
  const { parent: _p, source: _s, organization: _o, ...rest } = repo;
  return rest;
}

/** The `text_matches` of one property, when the client asked for them (`Accept: application/vnd.github.text-match+json`). */
export function textMatches(objectUrl: string, objectType: string, property: string, text: string, words: string[]): Json[] {
  const lower = text.toLowerCase();
  const out: Json[] = [];
  for (const word of words) {
    const at = lower.indexOf(word);
    if (at < 0) continue;
    const start = Math.max(0, at - 60);
    const fragment = text.slice(start, Math.min(text.length, at + word.length + 60));
    out.push({
      object_url: objectUrl,
      object_type: objectType,
      property,
      fragment,
      matches: [{ text: text.slice(at, at + word.length), indices: [at - start, at - start + word.length] }],
    });
  }
  return out;
}

const containsAll = (text: string, words: string[]) => {
  const lower = text.toLowerCase();
  return words.every((w) => lower.includes(w));
};

// ---- repositories ---------------------------------------------------------------------------

/** The default branch's README text (`in:readme`), cut to the code index's size. */
function readmeText(ctx: TwinContext, repo: Json): string {
  const head = branchHead(ctx, repo, repo.default_branch);
  const found = head ? readmeOf(ctx, repo, head, '') : undefined;
  return found ? readBlob(ctx, repo, found.blob.sha).subarray(0, CODE_INDEX_MAX_BYTES).toString('utf8') : '';
}

/** The stored repositories a repository search finds, in result order. */
export function matchingRepositories(ctx: TwinContext, query: SearchQuery, sort?: string, order = 'desc'): Json[] {
  const where = qualifiersOf(query, 'in').flatMap((q) => q.value.toLowerCase().split(','));
  const fields = where.length ? where : ['name', 'description', 'topics'];
  const found = scopedRepositories(ctx, query).filter((repo) => {
    const text = fields
      .map((f) =>
        f === 'name'
          ? repo.name
          : f === 'description'
            ? (repo.description ?? '')
            : f === 'topics'
              ? (repo.topics ?? []).join(' ')
              : f === 'readme'
                ? readmeText(ctx, repo)
                : '',
      )
      .join('\n');
    if (!containsAll(text, query.words)) return false;
    return allHold(query, (q) => {
      const v = q.value.toLowerCase();
      switch (q.key) {
        case 'language':
          return (repo.language ?? '').toLowerCase() === v;
        case 'topic':
          return (repo.topics ?? []).some((t: string) => t.toLowerCase() === v);
        case 'is':
          return v === 'public' ? !repo.private : v === 'private' ? repo.private : v === 'archived' ? repo.archived : v === 'fork' ? repo.fork : undefined;
        case 'fork':
          // Forks are left out unless asked for: `fork:true` adds them, `fork:only` keeps only them.
          return v === 'only' ? repo.fork : v === 'true' ? true : undefined;
        case 'archived':
          return v === 'true' ? repo.archived : v === 'false' ? !repo.archived : undefined;
        case 'stars':
          return inRange(repo.stargazers_count, v);
        case 'forks':
          return inRange(repo.forks_count, v);
        case 'size':
          return inRange(repo.size, v);
        case 'created':
          return inRange(repo.created_at, v);
        case 'pushed':
          return inRange(repo.pushed_at, v);
        default:
          return undefined;
      }
    });
  });
  const forks = qualifiersOf(query, 'fork').map((q) => q.value.toLowerCase());
  const results = forks.length ? found : found.filter((r) => !r.fork);
  const key = sort === 'stars' ? 'stargazers_count' : sort === 'forks' ? 'forks_count' : sort === 'updated' ? 'updated_at' : undefined;
  const sign = order === 'asc' ? 1 : -1;
  if (key) results.sort((a, b) => (a[key] < b[key] ? -sign : a[key] > b[key] ? sign : 0));
  return results;
}

export function searchRepositories(ctx: TwinContext, query: SearchQuery, sort?: string, order = 'desc'): Json[] {
  return matchingRepositories(ctx, query, sort, order).map((r) => ({ ...searchRepository(r), score: 1 }));
}

// ---- code -----------------------------------------------------------------------------------

function globToRegExp(glob: string): RegExp {
  // `**` crosses directories, `*` stays within one.
  const parts = glob.split('**').map((part) => part.replace(/[.+^${}()|[\]\\?]/g, '\\$&').replace(/\*/g, '[^/]*'));
  return new RegExp(`^${parts.join('.*')}$`, 'i');
}

/** `path:` — a directory the file is under (or the path itself), a glob where it has `*`. */
function pathMatches(path: string, value: string): boolean {
  const v = value.replace(/^\/+|\/+$/g, '');
  if (v.includes('*')) return globToRegExp(v).test(path);
  const lower = path.toLowerCase();
  const dir = v.toLowerCase();
  return dir === '' || lower === dir || lower.startsWith(`${dir}/`) || lower.includes(`/${dir}/`);
}

/**
 * Code search: files of each repository's default branch (under 384 KB, as GitHub indexes them)
 * whose content (`in:file`, the default) or path (`in:path`) holds every word.
 */
export function searchCode(ctx: TwinContext, query: SearchQuery, languageOf: (path: string) => { name: string } | undefined, withTextMatches: boolean): Json[] {
  if (query.words.length === 0 && !qualifiersOf(query, 'filename', 'extension', 'path', 'language').length) {
    throw new SearchQueryError('Must include at least one search term.');
  }
  const where = qualifiersOf(query, 'in').flatMap((q) => q.value.toLowerCase().split(','));
  const inFile = where.length === 0 || where.includes('file');
  const inPath = where.includes('path');
  const results: Json[] = [];
  for (const repo of scopedRepositories(ctx, query)) {
    const head = branchHead(ctx, repo, repo.default_branch);
    if (!head) continue;
    for (const [path, sha] of commitFiles(ctx, repo, head)) {
      const name = path.slice(path.lastIndexOf('/') + 1);
      const blob = getBlob(ctx, repo, sha);
      const size = (blob?.size as number | undefined) ?? 0;
      if (size > CODE_INDEX_MAX_BYTES) continue;
      const ok = allHold(query, (q) => {
        const v = q.value.toLowerCase();
        switch (q.key) {
          case 'path':
            return pathMatches(path, q.value);
          case 'filename':
            return v.includes('*') ? globToRegExp(v).test(name) : name.toLowerCase() === v;
          case 'extension':
            return name.toLowerCase().endsWith(`.${v.replace(/^\./, '')}`);
          case 'language':
            return (languageOf(path)?.name ?? '').toLowerCase() === v;
          case 'size':
            return inRange(size, v);
          default:
            return undefined;
        }
      });
      if (!ok) continue;
      let content: string | undefined;
      if (query.words.length) {
        const pathHit = inPath && containsAll(path, query.words);
        if (!pathHit) {
          if (!inFile) continue;
          content = readBlob(ctx, repo, sha).toString('utf8');
          if (!containsAll(content, query.words)) continue;
        }
      }
      const url = `${API}/repositories/${repo.id}/contents/${path}?ref=${head}`;
      const item: Json = {
        name,
        path,
        sha,
        url,
        git_url: `${API}/repositories/${repo.id}/git/blobs/${sha}`,
        html_url: `${WEB}/${repo.full_name}/blob/${head}/${path}`,
        repository: searchRepository(repo),
        score: 1,
      };
      if (withTextMatches) item.text_matches = content === undefined ? [] : textMatches(url, 'FileContent', 'content', content, query.words);
      results.push(item);
    }
  }
  return results;
}

// ---- commits --------------------------------------------------------------------------------

/** Commit search: the default branch's history of each repository; words in the message. */
export function searchCommits(ctx: TwinContext, query: SearchQuery, sort?: string, order = 'desc', withTextMatches = false): Json[] {
  const results: Json[] = [];
  for (const repo of scopedRepositories(ctx, query)) {
    const head = branchHead(ctx, repo, repo.default_branch);
    if (!head) continue;
    for (const c of history(ctx, repo, head)) {
      if (!containsAll(c.message, query.words)) continue;
      const rest = restCommit(ctx, repo, c);
      const ok = allHold(query, (q) => {
        const v = q.value.toLowerCase();
        switch (q.key) {
          case 'author':
            return rest.author?.login?.toLowerCase() === v;
          case 'committer':
            return rest.committer?.login?.toLowerCase() === v;
          case 'author-name':
            return c.author.name.toLowerCase().includes(v);
          case 'committer-name':
            return c.committer.name.toLowerCase().includes(v);
          case 'author-email':
            return c.author.email.toLowerCase() === v;
          case 'committer-email':
            return c.committer.email.toLowerCase() === v;
          case 'author-date':
            return inRange(c.author.date, v);
          case 'committer-date':
            return inRange(c.committer.date, v);
          case 'merge':
            return v === 'true' ? c.parents.length > 1 : v === 'false' ? c.parents.length <= 1 : undefined;
          case 'hash':
            return c.sha.startsWith(v);
          case 'parent':
            return c.parents.some((p: Json) => p.sha.startsWith(v));
          case 'tree':
            return c.tree.sha.startsWith(v);
          case 'is':
            return v === 'public' ? !repo.private : v === 'private' ? repo.private : undefined;
          default:
            return undefined;
        }
      });
      if (!ok) continue;
      const item: Json = { ...rest, repository: searchRepository(repo), score: 1 };
      if (withTextMatches) item.text_matches = textMatches(rest.url, 'Commit', 'message', c.message, query.words);
      results.push(item);
    }
  }
  if (sort === 'author-date' || sort === 'committer-date') {
    const who = sort === 'author-date' ? 'author' : 'committer';
    const sign = order === 'asc' ? 1 : -1;
    results.sort((a, b) => sign * (Date.parse(a.commit[who].date) - Date.parse(b.commit[who].date)));
  }
  return results;
}

// ---- users ----------------------------------------------------------------------------------

/** The stored users and organizations a user search finds: by login, name or email (`in:`), `type:`, `repos:`, `followers:`. */
export function matchingAccounts(ctx: TwinContext, query: SearchQuery): Json[] {
  const where = qualifiersOf(query, 'in').flatMap((q) => q.value.toLowerCase().split(','));
  const fields = where.length ? where : ['login', 'name', 'email'];
  const accounts = [...ctx.store.list<Json>('user'), ...ctx.store.list<Json>('org')];
  return accounts.filter((a) => {
    const text = fields.map((f) => (f === 'login' ? a.login : f === 'name' ? (a.name ?? '') : f === 'email' ? (a.email ?? '') : '')).join('\n');
    if (!containsAll(text, query.words)) return false;
    return allHold(query, (q) => {
      const v = q.value.toLowerCase();
      switch (q.key) {
        case 'type':
          return v === 'user' ? a.type === 'User' : v === 'org' ? a.type === 'Organization' : undefined;
        case 'user':
        case 'org':
          return a.login.toLowerCase() === v;
        case 'repos':
          return inRange(a.public_repos ?? 0, v);
        case 'followers':
          return inRange(a.followers ?? 0, v);
        case 'created':
          return inRange(a.created_at, v);
        default:
          return undefined;
      }
    });
  });
}

export function searchUsers(ctx: TwinContext, query: SearchQuery): Json[] {
  return matchingAccounts(ctx, query).map((a) => ({ ...simpleAccount(a), score: 1 }));
}

// ---- labels and topics ---------------------------------------------------------------------

/**
 * `GET /search/labels`: the labels of one repository whose name or description holds every word of
 * `q` (GitHub searches a single repository's labels).
 */
export function searchLabels(labels: Json[], query: SearchQuery, sort?: string, order = 'desc'): Json[] {
  const found = labels.filter((l) => containsAll(`${l.name}\n${l.description ?? ''}`, query.words));
  const sign = order === 'asc' ? 1 : -1;
  if (sort === 'created' || sort === 'updated') found.sort((a, b) => ((a.id as number) - (b.id as number)) * sign);
  return found.map((l) => ({ ...l, score: 1 }));
}

/**
 * `GET /search/topics`: the topics the twin's repositories carry whose name holds every word of
 * `q`. GitHub's curated topic pages (display names, descriptions, logos) are not part of the twin,
 * so those fields are null and `featured`/`curated` false; `is:featured`/`is:curated` find nothing.
 */
export function searchTopics(ctx: TwinContext, query: SearchQuery): Json[] {
  const curatedOnly = qualifiersOf(query, 'is').some((q) => ['featured', 'curated'].includes(q.value.toLowerCase()));
  if (curatedOnly) return [];
  const used = new Map<string, { created: string; updated: string; count: number }>();
  for (const repo of scopedRepositories(ctx, query)) {
    for (const name of (repo.topics ?? []) as string[]) {
      const seen = used.get(name);
      used.set(name, {
        created: seen && seen.created < repo.created_at ? seen.created : repo.created_at,
        updated: seen && seen.updated > repo.updated_at ? seen.updated : repo.updated_at,
        count: (seen?.count ?? 0) + 1,
      });
    }
  }
  return [...used]
    .filter(([name]) => containsAll(name, query.words))
    .sort(([a, x], [b, y]) => y.count - x.count || (a < b ? -1 : 1))
    .map(([name, u]) => ({
      name,
      display_name: null,
      short_description: null,
      description: null,
      created_by: null,
      released: null,
      created_at: u.created,
      updated_at: u.updated,
      featured: false,
      curated: false,
      score: 1,
    }));
}
