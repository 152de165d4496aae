// Answer a JSON body through one of the twin's own routes, in-process (a batch's requests are
// answered exactly as the endpoint answers them: same validation, scripts and answers). A thrown
// provider error is rendered by the twin's own renderer.

import type { TwinContext, TwinRequest, TwinResponse, TwinRoute } from '../contract.js';

export async function answerInProcess(
  route: TwinRoute,
  body: Record<string, unknown>,
  ctx: TwinContext,
  render: (error: unknown) => TwinResponse | undefined,
): Promise<{ status: number; body: unknown }> {
  const req: TwinRequest = {
    method: route.method,
    path: route.path,
    params: {},
    queryString: '',
    query: {},
    headers: { 'content-type': 'application/json' },
    rawBody: Buffer.from(JSON.stringify(body)),
    body,
    bodyKind: 'json',
  };
  try {
    const res = await route.handler(req, ctx);
    return { status: res.status, body: res.body };
  } catch (e) {
    const rendered = render(e);
    if (!rendered) throw e;
    return { status: rendered.status, body: rendered.body };
  }
}
