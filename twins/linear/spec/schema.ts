// Linear's GraphQL schema, derived from the official SDK package (a dependency, not a copy):
// @linear/sdk ships the TypeScript that graphql-codegen generated from Linear's schema.graphql
// (`type Issue = Node & { __typename?: "Issue"; title: Scalars["String"]; … }`, `declare enum`,
// `type IssueChildrenArgs = {…}` for field arguments). This file turns those declarations back into
// SDL and builds an executable schema once per process, on the first GraphQL request.

import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { buildASTSchema, parse, type GraphQLSchema } from 'graphql';

interface Decl {
  name: string;
  implements: string[];
  fields: { name: string; optional: boolean; type: string }[];
  typename: boolean;
}

/** The SDK's declaration file that carries the schema types (its name has a build hash). */
function sdkDeclarations(): string {
  const require = createRequire(import.meta.url);
  const dir = join(dirname(require.resolve('@linear/sdk')));
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.d.mts')) continue;
    const text = readFileSync(join(dir, name), 'utf8');
    if (text.includes('\ntype Query = {')) return text;
  }
  throw new Error('@linear/sdk: no declaration file with the schema types (type Query) was found');
}

/** A codegen type expression as an SDL type (`Maybe<Array<Scalars["String"]>>` → `[String!]`). */
function sdlType(expr: string, nullable: boolean): string {
  let e = expr.trim();
  let canBeNull = nullable;
  const wrapper = /^(Maybe|InputMaybe)<(.*)>$/.exec(e);
  if (wrapper) {
    canBeNull = true;
    e = wrapper[2]!.trim();
  }
  let inner: string;
  const list = /^Array<(.*)>$/.exec(e);
  if (list) inner = `[${sdlType(list[1]!, false)}]`;
  else {
    const scalar = /^Scalars\["([A-Za-z]+)"\]$/.exec(e);
    inner = scalar ? scalar[1]! : e;
  }
  return canBeNull ? inner : `${inner}!`;
}

/** SDL for the schema part of the SDK's declarations. */
export function linearSdl(source = sdkDeclarations()): string {
  const end = source.indexOf('Fragment = {');
  const text = source.slice(0, end === -1 ? source.length : end);
  const lines = text.split('\n');
  const decls = new Map<string, Decl>();
  const enums = new Map<string, string[]>();
  const unions = new Map<string, string[]>();
  const scalars: string[] = [];
  let current: Decl | undefined;
  let currentEnum: string[] | undefined;
  let inScalars = false;
  for (const raw of lines) {
    const line = raw.replace(/\s+$/, '');
    if (inScalars) {
      if (line === '};') inScalars = false;
      else {
        const m = /^ {2}([A-Za-z]+): /.exec(line);
        if (m && !['ID', 'String', 'Boolean', 'Int', 'Float'].includes(m[1]!)) scalars.push(m[1]!);
      }
      continue;
    }
    if (current) {
      if (line === '};') {
        decls.set(current.name, current);
        current = undefined;
        continue;
      }
      const f = /^ {2}([A-Za-z_][A-Za-z0-9_]*)(\?)?: (.*);$/.exec(line);
      if (!f) continue;
      if (f[1] === '__typename') current.typename = true;
      else current.fields.push({ name: f[1]!, optional: f[2] === '?', type: f[3]! });
      continue;
    }
    if (currentEnum) {
      if (line === '}') {
        currentEnum = undefined;
        continue;
      }
      const v = /^ {2}[A-Za-z0-9_]+ = "([A-Za-z0-9_]+)",?$/.exec(line);
      if (v) currentEnum.push(v[1]!);
      continue;
    }
    if (line === 'type Scalars = {') {
      inScalars = true;
      continue;
    }
    const en = /^declare enum ([A-Za-z0-9_]+) \{$/.exec(line);
    if (en) {
      enums.set(en[1]!, (currentEnum = []));
      continue;
    }
    const obj = /^type ([A-Za-z0-9_]+) = ((?:[A-Za-z0-9_]+ & )*)\{$/.exec(line);
    if (obj) {
      const impl = obj[2] ? obj[2].split('&').map((s) => s.trim()).filter(Boolean) : [];
      current = { name: obj[1]!, implements: impl, fields: [], typename: false };
      continue;
    }
    const un = /^type ([A-Za-z0-9_]+) = ([A-Za-z0-9_]+(?: \| [A-Za-z0-9_]+)+);$/.exec(line);
    if (un) unions.set(un[1]!, un[2]!.split(' | '));
  }

  const interfaces = new Set<string>();
  for (const d of decls.values()) for (const i of d.implements) interfaces.add(i);
  const objects = [...decls.values()].filter((d) => d.typename || interfaces.has(d.name));
  const argsTypes = new Set<string>();
  // graphql-codegen names a field's argument type in pascal case, acronyms included:
  // `Query.attachmentsForURL` → `QueryAttachmentsForUrlArgs`; matched without case.
  const argsByLowerName = new Map<string, Decl>();
  for (const d of decls.values()) if (d.name.endsWith('Args')) argsByLowerName.set(d.name.toLowerCase(), d);
  const out: string[] = ['schema { query: Query mutation: Mutation }'];
  for (const s of scalars) out.push(`scalar ${s}`);
  for (const [name, values] of enums) if (values.length > 0) out.push(`enum ${name} { ${values.join(' ')} }`);
  for (const [name, members] of unions) out.push(`union ${name} = ${members.join(' | ')}`);
  const rendered = new Set<string>();
  for (const d of objects) {
    const keyword = interfaces.has(d.name) ? 'interface' : 'type';
    const impl = d.implements.length ? ` implements ${d.implements.join(' & ')}` : '';
    const fields = d.fields.map((f) => {
      const argsName = `${d.name}${f.name[0]!.toUpperCase()}${f.name.slice(1)}Args`;
      const args = decls.get(argsName) ?? argsByLowerName.get(argsName.toLowerCase());
      let argText = '';
      if (args && args.fields.length > 0) {
        argsTypes.add(args.name);
        argText = `(${args.fields.map((a) => `${a.name}: ${sdlType(a.type, a.optional)}`).join(', ')})`;
      }
      return `  ${f.name}${argText}: ${sdlType(f.type, f.optional)}`;
    });
    if (fields.length === 0) continue;
    rendered.add(d.name);
    out.push(`${keyword} ${d.name}${impl} {\n${fields.join('\n')}\n}`);
  }
  // Everything else without __typename is an input object (filters, create/update inputs, sorts).
  for (const d of decls.values()) {
    if (rendered.has(d.name) || objects.includes(d) || argsTypes.has(d.name) || d.name.endsWith('Args') || d.fields.length === 0) continue;
    const fields = d.fields.map((f) => `  ${f.name}: ${sdlType(f.type, f.optional)}`);
    out.push(`input ${d.name} {\n${fields.join('\n')}\n}`);
  }
  return out.join('\n');
}

let built: GraphQLSchema | undefined;

/**
 * The executable schema (built once per process). The SDL is generated, so it is built without
 * source locations and without re-validation: about 3× faster than buildSchema's defaults
 * (scripts/bench/linear-graphql.ts); test/twins/linear checks it validates.
 */
export function linearSchema(): GraphQLSchema {
  built ??= buildASTSchema(parse(linearSdl(), { noLocation: true }), { assumeValid: true, assumeValidSDL: true });
  return built;
}
