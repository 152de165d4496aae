// A skill as both LLM providers take it: files under one top-level directory with a SKILL.md whose
// YAML frontmatter gives `name` (a kebab-case slug) and `description`, and its content as a zip of
// those files under `<name>/`. Limits bound what one upload may hold.

import { loadOnce } from '../load-once.js';

const loadArchiver = loadOnce(() => import('archiver'));
const MAX_FILES = 1_000;
const MAX_BYTES = 30 * 1024 ** 2;
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export interface PackageFile {
  filename: string;
  content: Buffer;
}

/** A file of a stored skill version: its path under the skill's directory. */
export interface StoredFile {
  path: string;
  content_base64: string;
}

/** `name:` and `description:` of a YAML frontmatter block (single-line values, quotes dropped). */
function frontmatter(text: string): Record<string, string> {
  const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (!m) return {};
  const out: Record<string, string> = {};
  for (const line of m[1]!.split(/\r?\n/)) {
    const kv = /^(name|description):\s*(.*)$/.exec(line);
    if (kv) out[kv[1]!] = kv[2]!.trim().replace(/^(["'])(.*)\1$/, '$2');
  }
  return out;
}

/** The upload's files under their top-level directory, its SKILL.md's name and description. */
export function readSkillPackage(files: PackageFile[], refuse: (message: string) => Error): { name: string; description: string; files: StoredFile[] } {
  if (files.length === 0) throw refuse('files: at least one file is required');
  if (files.length > MAX_FILES) throw refuse(`files: at most ${MAX_FILES} files`);
  if (files.reduce((n, f) => n + f.content.length, 0) > MAX_BYTES) throw refuse(`files: the upload exceeds ${MAX_BYTES} bytes`);
  const tops = new Set(files.map((f) => (f.filename.includes('/') ? f.filename.split('/')[0]! : '')));
  if (tops.size !== 1) throw refuse('files: All files must be in the same top-level directory.');
  const top = [...tops][0]!;
  const skillMd = files.find((f) => f.filename === (top ? `${top}/SKILL.md` : 'SKILL.md'));
  if (!skillMd) throw refuse('files: SKILL.md file must be exactly in the top-level folder.');
  const meta = frontmatter(skillMd.content.toString('utf8'));
  const name = meta.name ?? top;
  if (!name || !SLUG.test(name) || name.length > 64) throw refuse('SKILL.md: `name` must be a kebab-case slug of at most 64 characters.');
  const description = meta.description ?? '';
  if (description === '' || description.length > 1024) throw refuse('SKILL.md: `description` is required (at most 1024 characters).');
  return {
    name,
    description,
    files: files.map((f) => ({ path: top ? f.filename.slice(top.length + 1) : f.filename, content_base64: f.content.toString('base64') })),
  };
}

/** The files as a zip under `<name>/`. */
export async function skillZip(name: string, files: StoredFile[], date: Date): Promise<Buffer> {
  const { ZipArchive } = await loadArchiver();
  const archive = new ZipArchive({ zlib: { level: 6 } });
  const body = new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    archive.on('data', (c: Buffer) => chunks.push(c));
    archive.on('end', () => resolve(Buffer.concat(chunks)));
    archive.on('error', reject);
  });
  for (const f of files) archive.append(Buffer.from(f.content_base64, 'base64'), { name: `${name}/${f.path}`, date });
  void archive.finalize();
  return body;
}
