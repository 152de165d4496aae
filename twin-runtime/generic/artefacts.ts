// Reading a twin's generated spec artefacts (see spec-types.ts): the operation table at start, a
// schema piece only when an operation first needs it (one positioned read of schemas.jsonl), so the
// provider's full spec is never held in memory.

import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OperationEntry, OperationPiece, OperationTable } from './spec-types.js';

export class SpecArtefacts {
  readonly table: OperationTable;
  private readonly cache = new Map<string, unknown>();

  constructor(readonly dir: string) {
    this.table = JSON.parse(readFileSync(join(dir, 'operations.json'), 'utf8')) as OperationTable;
  }

  get operations(): OperationEntry[] {
    return this.table.operations;
  }

  /** One piece by name (`op:<id>` or a component schema name); undefined when the table has none. */
  piece<T = unknown>(name: string): T | undefined {
    if (this.cache.has(name)) return this.cache.get(name) as T;
    const at = this.table.pieces[name];
    if (!at) return undefined;
    const buf = Buffer.alloc(at[1]);
    const fd = openSync(join(this.dir, 'schemas.jsonl'), 'r');
    try {
      readSync(fd, buf, 0, at[1], at[0]);
    } finally {
      closeSync(fd);
    }
    const [stored, value] = JSON.parse(buf.toString('utf8')) as [string, T];
    if (stored !== name) throw new Error(`schemas.jsonl is out of step with operations.json at '${name}' (run npm run gen:spec)`);
    this.cache.set(name, value);
    return value;
  }

  operation(id: string): OperationPiece {
    return this.piece<OperationPiece>(`op:${id}`) ?? { request: { params: [] } };
  }

  /** A component schema (what `#/components/schemas/<name>` names). */
  schema(name: string): unknown {
    return this.piece(name);
  }

  /** How many pieces have been read so far (what a process holds of the spec). */
  get loadedPieces(): number {
    return this.cache.size;
  }
}

const loaded = new Map<string, SpecArtefacts>();

/**
 * The artefacts of one twin. `moduleUrl` is the `import.meta.url` of a file in `twins/<slug>/<dir>/`;
 * the folder is its sibling `spec/`, or, from a build in `dist/` that did not copy it, the one in
 * the source tree.
 */
export function loadArtefacts(moduleUrl: string): SpecArtefacts {
  const here = dirname(fileURLToPath(moduleUrl));
  const twinDir = dirname(here);
  const candidates = [join(twinDir, 'spec')];
  const distAt = twinDir.lastIndexOf(`${join('dist', 'twins')}`);
  if (distAt !== -1) candidates.push(join(twinDir.slice(0, distAt), twinDir.slice(distAt + 'dist/'.length), 'spec'));
  // Both files: tsc copies the JSON a module imports (operations.json) into dist/ but never the
  // schema pieces, so a dist/ folder holding only the table is not a set of artefacts.
  const dir = candidates.find((d) => existsSync(join(d, 'operations.json')) && existsSync(join(d, 'schemas.jsonl')));
  if (!dir) throw new Error(`no generated spec artefacts for ${twinDir} (looked in ${candidates.join(', ')})`);
  let a = loaded.get(dir);
  if (!a) {
    a = new SpecArtefacts(dir);
    loaded.set(dir, a);
  }
  return a;
}
