// The request parameters of every operation the installed `stripe` SDK calls, read from the SDK's
// own type definitions (`cjs/resources/**/*.d.ts`, which Stripe generates from its OpenAPI spec
// for the SDK's API version): each resource method's `params` type, as a JSON schema. The
// generator uses them so the Stripe twin takes the parameters of the SDK's API version:
//   - an operation the pinned spec lacks gets its whole request schema from here;
//   - an operation both have keeps the spec's types (integers, lengths, formats) for the
//     parameters the SDK still names, gains the ones the SDK added, and drops the ones the SDK's
//     version removed (`mergeRequestSchema`).
// `number` in the SDK's types is `number` here (the types do not tell integers apart).

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import type { Json } from '../../../twin-runtime/spec-build/openapi.js';
import { packageRoot, shapeOf } from '../../../twin-runtime/spec-build/source.js';

/** `METHOD /template` shape → the JSON schema of its `params` argument. */
export function stripeSdkParams(): Map<string, Json> {
  const root = join(packageRoot('stripe'), 'cjs', 'resources');
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const file = join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else if (name.endsWith('.d.ts')) files.push(file);
    }
  };
  walk(root);
  const options: ts.CompilerOptions = { noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext };
  // Types only: the declarations' JSDoc (most of their text) is never read here, so it is not parsed
  // (Stripe's generation 8.0 -> 7.4 s CPU, the same artefacts).
  const host = ts.createCompilerHost(options);
  host.jsDocParsingMode = ts.JSDocParsingMode.ParseNone;
  const program = ts.createProgram({ rootNames: files, options, host });
  const checker = program.getTypeChecker();
  const out = new Map<string, Json>();

  for (const file of files) {
    const js = readFileSync(file.replace(/\.d\.ts$/, '.js'), 'utf8');
    // `name(args) { return this._makeRequest('METHOD', path` per method of the resource class.
    const calls = new Map<string, { method: string; path: string }>();
    const re = /\n\s+(\w+)\([^)]*\)\s*\{\s*return this\._makeRequest\('([A-Z]+)',\s*(?:`([^`]+)`|'([^']+)')/g;
    for (const m of js.matchAll(re)) {
      calls.set(m[1]!, { method: m[2]!, path: (m[3] ?? m[4]!).replace(/\$\{encodeURIComponent\((\w+)\)\}/g, '{$1}') });
    }
    const source = program.getSourceFile(file);
    if (!source) continue;
    ts.forEachChild(source, (node) => {
      if (!ts.isClassDeclaration(node)) return;
      for (const member of node.members) {
        if (!ts.isMethodDeclaration(member) || !member.name || !ts.isIdentifier(member.name)) continue;
        const call = calls.get(member.name.text);
        const param = member.parameters.find((p) => ts.isIdentifier(p.name) && p.name.text === 'params');
        if (!call || !param?.type) continue;
        const shape = shapeOf(call.method, call.path);
        if (out.has(shape)) continue;
        out.set(shape, toSchema(checker, checker.getTypeFromTypeNode(param.type), 0));
      }
    });
  }
  return out;
}

const MAX_DEPTH = 14;

function toSchema(checker: ts.TypeChecker, type: ts.Type, depth: number): Json {
  if (depth > MAX_DEPTH) return {};
  const f = type.flags;
  if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return {};
  if (type.isUnion()) {
    const parts = type.types.filter((t) => !(t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)));
    const literals = parts.filter((t): t is ts.StringLiteralType => t.isStringLiteral()).map((t) => t.value);
    const booleans = parts.filter((t) => t.flags & ts.TypeFlags.BooleanLiteral);
    const rest = parts.filter((t) => !t.isStringLiteral() && !(t.flags & ts.TypeFlags.BooleanLiteral));
    const branches: Json[] = [];
    // An open string (`OtherString`) beside literals takes any string.
    const openString = rest.some((t) => isStringish(t));
    const nonEmpty = literals.filter((l) => l !== '');
    if (nonEmpty.length && !openString) branches.push({ type: 'string', enum: nonEmpty });
    if (booleans.length) branches.push({ type: 'boolean' });
    for (const t of rest) branches.push(toSchema(checker, t, depth + 1));
    // `Emptyable<T>`: an empty string unsets the value.
    if (literals.includes('') && !openString) branches.push({ type: 'string', enum: [''] });
    const unique = dedupe(branches);
    return unique.length === 1 ? unique[0] : { anyOf: unique };
  }
  if (isStringish(type)) return { type: 'string' };
  if (f & ts.TypeFlags.StringLiteral) return { type: 'string', enum: [(type as ts.StringLiteralType).value] };
  if (f & (ts.TypeFlags.Number | ts.TypeFlags.NumberLiteral)) return { type: 'number' };
  if (f & (ts.TypeFlags.Boolean | ts.TypeFlags.BooleanLiteral)) return { type: 'boolean' };
  if (checker.isArrayType(type)) {
    const [item] = checker.getTypeArguments(type as ts.TypeReference);
    return { type: 'array', items: item ? toSchema(checker, item, depth + 1) : {} };
  }
  // `Decimal` is an alias of an intersection (a class and two brand symbols): its alias names it.
  const name = type.aliasSymbol?.getName() ?? type.getSymbol()?.getName();
  // The SDK sends a Decimal and a Date as strings / unix seconds.
  if (name === 'Decimal') return { type: 'string', format: 'decimal' };
  if (name === 'Date') return { type: 'integer' };
  if (f & ts.TypeFlags.Object || type.isIntersection()) {
    const properties: Record<string, Json> = {};
    const required: string[] = [];
    for (const prop of checker.getPropertiesOfType(type)) {
      const decl = prop.valueDeclaration ?? prop.declarations?.[0];
      // A symbol-keyed member (`__@brand@2311`: its name carries the checker's symbol id) is never a parameter.
      if (!decl || prop.getName().startsWith('__@')) continue;
      properties[prop.getName()] = toSchema(checker, checker.getTypeOfSymbolAtLocation(prop, decl), depth + 1);
      if (!(prop.flags & ts.SymbolFlags.Optional)) required.push(prop.getName());
    }
    const index = checker.getIndexInfoOfType(type, ts.IndexKind.String);
    const schema: Json = { type: 'object' };
    if (Object.keys(properties).length || !index) schema.properties = properties;
    if (required.length) schema.required = required;
    if (index) schema.additionalProperties = toSchema(checker, index.type, depth + 1);
    return schema;
  }
  return {};
}

/** `string`, or `string & Record<never, never>` (the SDK's `OtherString`). */
function isStringish(type: ts.Type): boolean {
  if (type.flags & ts.TypeFlags.String) return true;
  return type.isIntersection() && type.types.some((t) => t.flags & ts.TypeFlags.String);
}

function dedupe(list: Json[]): Json[] {
  const seen = new Set<string>();
  return list.filter((s) => {
    const k = JSON.stringify(s);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

const objectBranch = (s: Json): Json | undefined =>
  s && s.type === 'object' && s.properties ? s : Array.isArray(s?.anyOf) ? s.anyOf.find((b: Json) => b?.type === 'object' && b.properties) : undefined;

/**
 * The spec's request schema brought to the SDK's version: the SDK names which parameters exist
 * (added ones join, removed ones leave, its `required` list wins); the spec keeps its types and
 * limits for every parameter both name. Enums take the SDK's values.
 */
export function mergeRequestSchema(spec: Json, sdk: Json): Json {
  if (!spec) return sdk;
  if (!sdk) return spec;
  const specObject = objectBranch(spec);
  const sdkObject = objectBranch(sdk);
  if (specObject && sdkObject) {
    const properties: Record<string, Json> = {};
    for (const [k, v] of Object.entries<Json>(sdkObject.properties)) {
      properties[k] = k in specObject.properties ? mergeRequestSchema(specObject.properties[k], v) : v;
    }
    const merged = { ...specObject, properties };
    if (sdkObject.required) merged.required = sdkObject.required;
    else delete merged.required;
    return specObject === spec ? merged : { ...spec, anyOf: spec.anyOf.map((b: Json) => (b === specObject ? merged : b)) };
  }
  if (spec.type === 'array' && sdk.type === 'array') return { ...spec, items: mergeRequestSchema(spec.items, sdk.items) };
  const sdkEnum = sdk.enum ?? (Array.isArray(sdk.anyOf) ? sdk.anyOf.find((b: Json) => Array.isArray(b.enum) && b.enum[0] !== '')?.enum : undefined);
  if (sdkEnum && Array.isArray(spec.enum) && spec.enum.some((v: unknown) => v !== '')) return { ...spec, enum: sdkEnum };
  return spec;
}
