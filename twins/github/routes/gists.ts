// /gists: create, read (a revision too), edit, delete, lists (the viewer's, a user's, public ones),
// and each file's raw URL (model/gists.ts).

import type { TwinContext, TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { invalidRequest } from '../wire/errors.js';
import { jsonBody, page, plainText, queryString, reply, type Reply } from '../wire/http.js';
import { languageTable } from '../model/languages.js';
import { createGist, deleteGist, type FileChange, listGists, presentGist, rawFile, requireGist, revisionOf, updateGist } from '../model/gists.js';

type LanguageOf = (name: string) => string | null;

/** A route whose answer names each file's language (Linguist's table, loaded on first use). */
function withLanguages(method: TwinRoute['method'], path: string, handler: (req: TwinRequest, ctx: TwinContext, languageOf: LanguageOf) => Reply): TwinRoute {
  return {
    method,
    path,
    handler: async (req, ctx) => {
      const table = await languageTable();
      return reply(() => handler(req, ctx, (name) => table(name)?.name ?? null))(req, ctx);
    },
  };
}

function filesOf(b: Record<string, unknown>, allowNull: boolean): Record<string, FileChange> | undefined {
  const files = b.files;
  if (files === undefined) return undefined;
  if (!files || typeof files !== 'object' || Array.isArray(files)) throw invalidRequest("Invalid request.\n\nFor 'properties/files', it is not an object.");
  const out: Record<string, FileChange> = {};
  for (const [name, f] of Object.entries(files as Record<string, unknown>)) {
    if (f === null && allowNull) out[name] = null;
    else if (f && typeof f === 'object' && !Array.isArray(f)) {
      const { content, filename } = f as { content?: unknown; filename?: unknown };
      if ((content !== undefined && typeof content !== 'string') || (filename !== undefined && filename !== null && typeof filename !== 'string')) {
        throw invalidRequest(`Invalid request.\n\nFor 'properties/files/${name}', the content must be a string.`);
      }
      out[name] = { content: content as string | undefined, filename: (filename as string | null | undefined) ?? undefined };
    } else throw invalidRequest(`Invalid request.\n\nFor 'properties/files/${name}', ${JSON.stringify(f)} is not an object.`);
  }
  return out;
}

const since = (req: TwinRequest) => queryString(req, 'since');

export const gistRoutes: TwinRoute[] = [
  withLanguages('POST', '/gists', (req, ctx, languageOf) => {
    const b = jsonBody(req);
    const files: Record<string, string> = {};
    for (const [name, f] of Object.entries(filesOf(b, false) ?? {})) files[name] = f?.content ?? '';
    const made = createGist(ctx, {
      description: typeof b.description === 'string' ? b.description : null,
      public: b.public === true || b.public === 'true',
      files,
    });
    return { status: 201, body: presentGist(ctx, made, languageOf, { full: true }) };
  }),
  withLanguages('GET', '/gists', (req, ctx, languageOf) =>
    page(
      req,
      ctx,
      listGists(ctx, { since: since(req) }).map((g) => presentGist(ctx, g, languageOf)),
    ),
  ),
  withLanguages('GET', '/gists/public', (req, ctx, languageOf) =>
    page(
      req,
      ctx,
      listGists(ctx, { publicOnly: true, since: since(req) }).map((g) => presentGist(ctx, g, languageOf)),
    ),
  ),
  withLanguages('GET', '/users/{username}/gists', (req, ctx, languageOf) =>
    page(
      req,
      ctx,
      listGists(ctx, { owner: req.params.username!, since: since(req) }).map((g) => presentGist(ctx, g, languageOf)),
    ),
  ),
  withLanguages('GET', '/gists/{gist_id}', (req, ctx, languageOf) => ({
    body: presentGist(ctx, requireGist(ctx, req.params.gist_id!), languageOf, { full: true }),
  })),
  withLanguages('GET', '/gists/{gist_id}/{sha}', (req, ctx, languageOf) => {
    const gist = requireGist(ctx, req.params.gist_id!);
    return { body: presentGist(ctx, gist, languageOf, { full: true, revision: revisionOf(gist, req.params.sha!) }) };
  }),
  withLanguages('PATCH', '/gists/{gist_id}', (req, ctx, languageOf) => {
    const b = jsonBody(req);
    const description = b.description === undefined ? undefined : typeof b.description === 'string' ? b.description : null;
    return { body: presentGist(ctx, updateGist(ctx, req.params.gist_id!, { description, files: filesOf(b, true) }), languageOf, { full: true }) };
  }),
  {
    method: 'DELETE',
    path: '/gists/{gist_id}',
    handler: reply((req, ctx) => {
      deleteGist(ctx, req.params.gist_id!);
      return { status: 204 };
    }),
  },
  {
    // A file's `raw_url` (gist.githubusercontent.com at GitHub): its bytes at one revision, to
    // anyone holding the URL (a secret gist's ids are its secret), as there.
    method: 'GET',
    path: '/_twin-gists/{gist_id}/{sha}/{filename}',
    public: true,
    handler: (req, ctx) => {
      const content = rawFile(ctx, req.params.gist_id!, req.params.sha!, decodeURIComponent(req.params.filename!));
      return content === undefined ? plainText(404, '404: Not Found') : plainText(200, content);
    },
  },
];
