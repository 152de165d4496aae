// A repository's languages as GitHub's language bar counts them: bytes per language over the default
// branch's files, recognised by Linguist's own extension and file name lists (the
// `linguist-languages` data, loaded on first use), programming and markup languages only, vendored
// and documentation paths left out. Linguist's content heuristics for ambiguous extensions are not
// run: such a file counts for the language whose primary extension it is.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { Json } from './accounts.js';
import { branchHead, commitFiles, getBlob } from './git.js';
import { loadOnce } from '../../../twin-runtime/load-once.js';

interface Language {
  name: string;
  color: string | null;
}

const VENDORED = /(^|\/)(node_modules|vendor|bower_components|third[_-]party|Pods|\.yarn)\/|(^|\/)docs?\/|(^|\/)dist\/|\.min\.(js|css)$/;

const table = loadOnce(async () => {
  const all = (await import('linguist-languages')) as unknown as Record<
    string,
    { name: string; type: string; color?: string; extensions?: string[]; filenames?: string[] }
  >;
  const byExtension = new Map<string, Language>();
  const primary = new Map<string, Language>();
  const byName = new Map<string, Language>();
  for (const l of Object.values(all)) {
    if (!l || (l.type !== 'programming' && l.type !== 'markup')) continue;
    const lang = { name: l.name, color: l.color ?? null };
    const [first, ...rest] = l.extensions ?? [];
    if (first) primary.set(first.toLowerCase(), lang);
    for (const e of [first, ...rest].filter((x): x is string => !!x)) if (!byExtension.has(e.toLowerCase())) byExtension.set(e.toLowerCase(), lang);
    for (const f of l.filenames ?? []) byName.set(f, lang);
  }
  return (path: string): Language | undefined => {
    const name = path.slice(path.lastIndexOf('/') + 1);
    const named = byName.get(name);
    if (named) return named;
    const dot = name.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const ext = name.slice(dot).toLowerCase();
    return primary.get(ext) ?? byExtension.get(ext);
  };
});

/** The language Linguist gives a path (by file name, then extension), once its table is loaded. */
export function languageTable(): Promise<(path: string) => Language | undefined> {
  return table();
}

/** Bytes per language on the default branch, largest first. */
export async function languagesOf(ctx: TwinContext, repo: Json): Promise<{ name: string; color: string | null; bytes: number }[]> {
  const head = branchHead(ctx, repo, repo.default_branch);
  if (!head) return [];
  const languageOf = await table();
  const totals = new Map<string, { name: string; color: string | null; bytes: number }>();
  for (const [path, sha] of commitFiles(ctx, repo, head)) {
    if (VENDORED.test(path)) continue;
    const lang = languageOf(path);
    if (!lang) continue;
    const t = totals.get(lang.name) ?? { ...lang, bytes: 0 };
    t.bytes += (getBlob(ctx, repo, sha)?.size as number | undefined) ?? 0;
    totals.set(lang.name, t);
  }
  return [...totals.values()].filter((t) => t.bytes > 0).sort((a, b) => b.bytes - a.bytes || (a.name < b.name ? -1 : 1));
}
