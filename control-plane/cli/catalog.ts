// `twins catalog`: the twins available for new environments.

import { ok } from '../client/index.js';
import { show, table } from './output.js';
import type { Handler } from './spec.js';

export const catalog: Handler = async (ctx) => {
  const client = await ctx.client();
  show(ctx, await ok(client.GET('/twins/catalog')), (twins) =>
    table([
      ['SLUG', 'VERSION', 'NAME', 'MCP', 'DESCRIPTION'],
      // MCP: the provider's MCP server whose tools the twin serves at <url>/mcp, and its version.
      ...twins.map((t) => [t.slug, t.version, t.name, t.mcp ? `${t.mcp.server} ${t.mcp.version}` : '-', t.description]),
    ]),
  );
};
