// Search: issues and pull requests, repositories, code, commits, users, labels and topics over the twin's state,
// with GitHub's query syntax (model/search.ts); the first 1,000 results are reachable through pages,
// and `Accept: application/vnd.github.text-match+json` adds `text_matches`.

import type { TwinContext, TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import type { Json } from '../model/accounts.js';
import { searchIssues } from '../model/issues.js';
import {
  SEARCH_RESULT_LIMIT,
  SearchQueryError,
  parseSearchQuery,
  searchCode,
  searchCommits,
  searchLabels,
  searchRepositories,
  searchTopics,
  searchUsers,
  type SearchQuery,
} from '../model/search.js';
import { notFound, validationFailed } from '../wire/errors.js';
import { listLabels } from '../model/labels.js';
import { findRepositoryById } from '../model/repositories.js';
import { page, pageParams, queryString, reply, routes } from '../wire/http.js';
import { languageTable } from '../model/languages.js';

/** `q` as sent; a missing one is GitHub's 422. */
function rawQuery(req: TwinRequest): string {
  const raw = queryString(req, 'q');
  if (!raw?.trim()) throw validationFailed({ resource: 'Search', field: 'q', code: 'missing' });
  return raw;
}

/** `q` parsed; a query GitHub refuses is its 422. */
function parsedQuery(req: TwinRequest): SearchQuery {
  const raw = rawQuery(req);
  return refusedAs422(() => parseSearchQuery(raw));
}

function refusedAs422<T>(run: () => T): T {
  try {
    return run();
  } catch (e) {
    if (e instanceof SearchQueryError) throw validationFailed({ resource: 'Search', field: 'q', code: 'invalid', message: e.message });
    throw e;
  }
}

const wantsTextMatches = (req: TwinRequest) => String(req.headers.accept ?? '').includes('text-match');

/** One page of results in the search envelope; pages past the first 1,000 results are refused as GitHub refuses them. */
function searchPage(req: TwinRequest, ctx: TwinContext, results: Json[]) {
  const { page: pageNumber, perPage } = pageParams(req);
  if ((pageNumber - 1) * perPage >= SEARCH_RESULT_LIMIT && results.length > 0) {
    throw validationFailed({ resource: 'Search', field: 'q', code: 'invalid', message: 'Only the first 1000 search results are available' });
  }
  const reachable = results.slice(0, SEARCH_RESULT_LIMIT);
  return page(req, ctx, reachable, (items) => ({ total_count: results.length, incomplete_results: false, items }));
}

const sortParam = (req: TwinRequest, allowed: string[]) => {
  const sort = queryString(req, 'sort');
  return sort && allowed.includes(sort) ? sort : undefined;
};
const orderParam = (req: TwinRequest) => (queryString(req, 'order') === 'asc' ? 'asc' : 'desc');

export const searchRoutes: TwinRoute[] = [
  ...routes('GET', '/search/issues', (req, ctx) => {
    const raw = rawQuery(req);
    const results = refusedAs422(() =>
      searchIssues(ctx, raw, sortParam(req, ['comments', 'created', 'updated', 'reactions', 'interactions']), orderParam(req)),
    );
    return searchPage(req, ctx, results);
  }),
  ...routes('GET', '/search/repositories', (req, ctx) => {
    const query = parsedQuery(req);
    return searchPage(req, ctx, searchRepositories(ctx, query, sortParam(req, ['stars', 'forks', 'updated']), orderParam(req)));
  }),
  {
    method: 'GET',
    path: '/search/code',
    // `language:` needs Linguist's data, loaded on the first request that needs it.
    handler: async (req, ctx) => {
      const languageOf = await languageTable();
      return reply(() => {
        const query = parsedQuery(req);
        return searchPage(
          req,
          ctx,
          refusedAs422(() => searchCode(ctx, query, languageOf, wantsTextMatches(req))),
        );
      })(req, ctx);
    },
  },
  ...routes('GET', '/search/commits', (req, ctx) => {
    const query = parsedQuery(req);
    return searchPage(req, ctx, searchCommits(ctx, query, sortParam(req, ['author-date', 'committer-date']), orderParam(req), wantsTextMatches(req)));
  }),
  ...routes('GET', '/search/users', (req, ctx) => {
    const query = parsedQuery(req);
    return searchPage(req, ctx, searchUsers(ctx, query));
  }),
  ...routes('GET', '/search/labels', (req, ctx) => {
    const id = Number(queryString(req, 'repository_id'));
    if (!queryString(req, 'repository_id')) throw validationFailed({ resource: 'Search', field: 'repository_id', code: 'missing' });
    const repo = Number.isSafeInteger(id) ? findRepositoryById(ctx, id) : undefined;
    if (!repo) throw notFound();
    const query = parsedQuery(req);
    return searchPage(req, ctx, searchLabels(listLabels(ctx, repo), query, sortParam(req, ['created', 'updated']), orderParam(req)));
  }),
  ...routes('GET', '/search/topics', (req, ctx) => {
    const query = parsedQuery(req);
    return searchPage(req, ctx, searchTopics(ctx, query));
  }),
];
