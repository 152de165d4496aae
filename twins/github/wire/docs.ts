// `documentation_url` as GitHub answers it: the page of the operation the request was routed to
// (a missing repository included), and the generic REST page only for a path no operation has.
// The pages come from the generated operation table (twins/github/spec/operations.json, each
// operation's `externalDocs.url` in @octokit/openapi; scripts/gen/spec.ts).

import { loadArtefacts } from '../../../twin-runtime/generic/artefacts.js';
import { templateShape } from '../../../twin-runtime/path-template.js';
import { TemplateRouter } from '../../../twin-runtime/router.js';
import { withoutEnterprisePrefix } from './enterprise.js';

export const DOCS = 'https://docs.github.com/rest';

let byShape: Map<string, string> | undefined;
let byPath: TemplateRouter<string> | undefined;

/** Operations with their page, from the table the generic layer reads too (read once per process). */
function documented(): { method: string; path: string; docs: string }[] {
  return loadArtefacts(import.meta.url).operations.flatMap((o) => (o.docs ? [{ method: o.method, path: o.path, docs: o.docs }] : []));
}

/** The page of the operation `method` + `template` (the twin's spelling: `{+path}` is `{path}`). */
export function operationDocs(method: string, template: string): string | undefined {
  if (!byShape) {
    byShape = new Map();
    for (const o of documented()) byShape.set(`${o.method} ${templateShape(o.path)}`, o.docs);
  }
  return byShape.get(`${method.toUpperCase()} ${templateShape(withoutEnterprisePrefix(template))}`);
}

/** The page for a request no twin route serves: its operation's when GitHub has one, else the REST index. */
export function docsForPath(method: string, path: string): string {
  if (!byPath) {
    // Built on the first route miss only: most twins never pay for it.
    byPath = new TemplateRouter<string>({ ignoreTrailingSlash: true });
    for (const o of documented()) if (!byPath.has(o.method, o.path)) byPath.add(o.method, o.path, o.docs);
  }
  return byPath.find(method, withoutEnterprisePrefix(path))?.value ?? DOCS;
}
