// Source archives of a commit, as GitHub's codeload serves them for `tarball`/`zipball` and a
// release's source downloads: every file under one top directory `<owner>-<repo>-<short sha>/`,
// with its mode (executables, symlinks). Written with archiver, loaded on the first archive.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { Json } from './accounts.js';
import { getCommit, readBlob, treeFileEntries } from './git.js';
import { notFound } from '../wire/errors.js';
import { loadOnce } from '../../../twin-runtime/load-once.js';

export type ArchiveFormat = 'tarball' | 'zipball';

const loadArchiver = loadOnce(() => import('archiver'));

/** Files an archive may hold (a larger tree is refused rather than held in memory). */
const MAX_FILES = 50_000;

export async function archiveOf(ctx: TwinContext, repo: Json, sha: string, format: ArchiveFormat): Promise<{ name: string; body: Buffer }> {
  const commit = getCommit(ctx, repo, sha);
  if (!commit) throw notFound();
  const top = `${repo.owner.login}-${repo.name}-${sha.slice(0, 7)}`;
  const entries = [...treeFileEntries(ctx, repo, commit.tree.sha)];
  if (entries.length > MAX_FILES) throw notFound();
  const date = new Date(commit.committer.date);
  const { TarArchive, ZipArchive } = await loadArchiver();
  const archive = format === 'tarball' ? new TarArchive({ gzip: true, gzipOptions: { level: 6 } }) : new ZipArchive({ zlib: { level: 6 } });
  const body = new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    archive.on('data', (c: Buffer) => chunks.push(c));
    archive.on('end', () => resolve(Buffer.concat(chunks)));
    archive.on('error', reject);
  });
  for (const [path, e] of entries) {
    const data = readBlob(ctx, repo, e.sha);
    if (e.mode === '120000') archive.symlink(`${top}/${path}`, data.toString('utf8'), 0o777);
    else archive.append(data, { name: `${top}/${path}`, date, mode: e.mode === '100755' ? 0o755 : 0o644 });
  }
  void archive.finalize();
  return { name: `${top}.${format === 'tarball' ? 'tar.gz' : 'zip'}`, body: await body };
}
