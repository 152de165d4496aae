// `documentation_url` as GitHub answers it: the page of the operation the request was routed to
// (a missing repository included), and the generic REST page only for a path no operation has.
// The table is generated from @octokit/openapi (scripts/gen/github-docs-urls.ts).

import table from '../spec/docs-urls.json' with { type: 'json' };
import { templateShape } from '../../../twin-runtime/path-template.js';
import { TemplateRouter } from '../../../twin-runtime/router.js';
import { withoutEnterprisePrefix } from './enterprise.js';

export const DOCS = 'https://docs.github.com/rest';

const operations = (table as { operations: Record<string, string> }).operations;

let byShape: Map<string, string> | undefined;
let byPath: TemplateRouter<string> | undefined;

function split(key: string): [string, string] {
  const at = key.indexOf(' ');
  return [key.slice(0, at), key.slice(at + 1)];
}

/** The page of the operation `method` + `template` (the twin's spelling: `{+path}` is `{path}`). */
export function operationDocs(method: string, template: string): string | undefined {
  if (!byShape) {
    byShape = new Map();
    for (const [key, url] of Object.entries(operations)) {
      const [m, t] = split(key);
      byShape.set(`${m} ${templateShape(t)}`, url);
    }
  }
  return byShape.get(`${method.toUpperCase()} ${templateShape(withoutEnterprisePrefix(template))}`);
}

/** The page for a request no twin route serves: its operation's when GitHub has one, else the REST index. */
export function docsForPath(method: string, path: string): string {
  if (!byPath) {
    // Built on the first route miss only: most twins never pay for it.
    byPath = new TemplateRouter<string>({ ignoreTrailingSlash: true });
    for (const [key, url] of Object.entries(operations)) {
      const [m, t] = split(key);
      byPath.add(m, t, url);
    }
  }
  return byPath.find(method, withoutEnterprisePrefix(path))?.value ?? DOCS;
}
