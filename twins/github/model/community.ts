// Community files GitHub reads from the default branch: issue templates (`.github/ISSUE_TEMPLATE/*.md`
// with their front matter) and pull request templates, as GraphQL's `issueTemplates` and
// `pullRequestTemplates` list them; and whether the files behind other community fields exist.

import { parse as parseYaml } from 'yaml';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { Json } from './accounts.js';
import { branchHead, commitFiles, readBlob } from './git.js';

function defaultFiles(ctx: TwinContext, repo: Json): Map<string, string> {
  const head = branchHead(ctx, repo, repo.default_branch);
  return head ? commitFiles(ctx, repo, head) : new Map();
}

/** Paths of the default branch matching `pattern` (case-insensitive where GitHub is). */
export function filesMatching(ctx: TwinContext, repo: Json, pattern: RegExp): string[] {
  return [...defaultFiles(ctx, repo).keys()].filter((p) => pattern.test(p)).sort();
}

const asList = (v: unknown): string[] =>
  Array.isArray(v)
    ? v.map(String).filter(Boolean)
    : typeof v === 'string'
      ? v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [];

/** `.github/ISSUE_TEMPLATE/*.md`: name, about, title, labels, assignees from the front matter; the rest is the body. */
export function issueTemplates(ctx: TwinContext, repo: Json): Json[] {
  const files = defaultFiles(ctx, repo);
  const out: Json[] = [];
  for (const [path, sha] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const m = /^\.github\/ISSUE_TEMPLATE\/([^/]+\.md)$/i.exec(path);
    if (!m) continue;
    const text = readBlob(ctx, repo, sha).toString('utf8');
    const fm = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
    let meta: Json = {};
    try {
      meta = fm ? ((parseYaml(fm[1]!, { maxAliasCount: 10 }) as Json) ?? {}) : {};
    } catch {
      meta = {};
    }
    out.push({
      filename: m[1],
      name: String(meta.name ?? m[1]),
      about: meta.about ?? null,
      title: meta.title ? String(meta.title) : null,
      body: fm ? text.slice(fm[0].length) : text,
      labels: asList(meta.labels),
      assignees: asList(meta.assignees),
    });
  }
  return out;
}

/** Pull request templates where GitHub looks for them (root, `.github/`, `docs/`, and the template directories). */
export function pullRequestTemplates(ctx: TwinContext, repo: Json): { filename: string; body: string }[] {
  const files = defaultFiles(ctx, repo);
  const out: { filename: string; body: string }[] = [];
  for (const [path, sha] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (!/^(\.github\/|docs\/)?pull_request_template\.md$|^(\.github\/|docs\/)?PULL_REQUEST_TEMPLATE\/[^/]+\.md$/i.test(path)) continue;
    out.push({ filename: path.slice(path.lastIndexOf('/') + 1), body: readBlob(ctx, repo, sha).toString('utf8') });
  }
  return out;
}
