// The tools of GitHub's own MCP server (github-mcp-server, pinned in spec/mcp-tools.json by
// scripts/gen/github-mcp-tools.ts), each acting through the twin's REST API as the server acts
// through api.github.com: `create_issue` is `POST /repos/{owner}/{repo}/issues`, so a tool call and
// the REST call leave the same state and fire the same webhooks. A tool the twin cannot answer
// (GraphQL-only parts, Copilot, security alerts, discussions, notifications, gists, projects) has no
// `call` and is refused as not simulated; an operation the twin refuses comes back as the tool's error.

import type { TwinApi, TwinMcp } from '../../../twin-runtime/contract.js';
import { NotSimulated } from '../../../twin-runtime/fidelity.js';
import {
  definedOnly,
  fillPath,
  lazyMcp,
  McpToolError,
  publishedTools,
  readPinnedTools,
  type McpToolAnswer,
  type PublishedTool,
} from '../../../twin-runtime/mcp.js';

type Args = Record<string, unknown>;
type ToolImpl = McpToolAnswer;

const REPO = '/repos/{owner}/{repo}';

/** A route template filled from the arguments (`{path}` keeps its slashes). */
const fill = (template: string, values: Args) => fillPath(template, values, ['path']);

const str = (v: unknown) => (v === undefined || v === null ? undefined : String(v));
/** GitHub MCP's `page`/`perPage` as the REST API's `page`/`per_page`. */
const paging = (a: Args) => ({ page: a.page as number | undefined, per_page: a.perPage as number | undefined });
const given = definedOnly;
const pr = (a: Args) => ({ ...a, pull_number: a.pullNumber });

/** The arguments the twin cannot honour (GitHub answers them through GraphQL-only features): refused, not ignored. */
function refuse(a: Args, names: string[], tool: string): void {
  for (const n of names) {
    if (a[n] !== undefined && a[n] !== false)
      throw new NotSimulated(`the MCP tool ${tool} with \`${n}\``, 'The twin answers it through the REST API, which has no such parameter.');
  }
}

const ISSUE = `${REPO}/issues/{issue_number}`;
const PULL = `${REPO}/pulls/{pull_number}`;
const CONTENTS = `${REPO}/contents/{path}`;

/** The sha of the file at `path` on `branch`, or undefined when there is none. */
async function fileSha(api: TwinApi, a: Args): Promise<string | undefined> {
  const found = await api.request('GET', fill(CONTENTS, a), { query: { ref: str(a.branch) } });
  if (found.status === 404) return undefined;
  if (found.status !== 200) await api.json('GET', fill(CONTENTS, a), { query: { ref: str(a.branch) } });
  const body = found.body as { type?: string; sha?: string } | unknown[];
  if (Array.isArray(body) || body.type !== 'file') throw new Error(`${String(a.path)} is not a file on ${String(a.branch)}`);
  return body.sha;
}

const patchIssue = (fields: (a: Args) => Args): ToolImpl => ({
  operations: [`PATCH ${ISSUE}`],
  call: (a, api) => api.json('PATCH', fill(ISSUE, a), { body: given(fields(a)) }),
});
const patchPull = (fields: (a: Args) => Args): ToolImpl => ({
  operations: [`PATCH ${PULL}`],
  call: (a, api) => api.json('PATCH', fill(PULL, pr(a)), { body: given(fields(a)) }),
});
const search = (path: string, qualifier = ''): ToolImpl => ({
  operations: [`GET ${path}`],
  call: (a, api) => {
    const repo = a.owner && a.repo ? ` repo:${String(a.owner)}/${String(a.repo)}` : '';
    return api.json('GET', path, { query: { q: `${String(a.query)}${qualifier}${repo}`, sort: str(a.sort), order: str(a.order), ...paging(a) } });
  },
});

/** The viewer's pending review of the pull request (the server finds it the same way, through GraphQL). */
async function pendingReview(a: Args, api: TwinApi): Promise<{ id: number }> {
  const me = (await api.json('GET', '/user')) as { login: string };
  const reviews = (await api.json('GET', fill(`${PULL}/reviews`, pr(a)), { query: { per_page: 100 } })) as {
    id: number;
    state: string;
    user: { login: string } | null;
  }[];
  const pending = reviews.find((r) => r.state === 'PENDING' && r.user?.login === me.login);
  if (!pending) throw new McpToolError('No pending review found for the viewer');
  return pending;
}

async function reviewCall(method: 'create' | 'submit_pending' | 'delete_pending', a: Args, api: TwinApi): Promise<unknown> {
  if (method === 'create') {
    return api.json('POST', fill(`${PULL}/reviews`, pr(a)), { body: given({ body: a.body, event: a.event, commit_id: a.commitID }) });
  }
  const pending = await pendingReview(a, api);
  const path = fill(`${PULL}/reviews/{review_id}`, { ...pr(a), review_id: pending.id });
  if (method === 'submit_pending') return api.json('POST', `${path}/events`, { body: given({ event: a.event, body: a.body }) });
  await api.json('DELETE', path);
  return 'pending pull request review successfully deleted';
}

const review = (method: 'create' | 'submit_pending' | 'delete_pending'): ToolImpl => ({
  operations:
    method === 'create'
      ? [`POST ${PULL}/reviews`]
      : [`GET ${PULL}/reviews`, method === 'submit_pending' ? `POST ${PULL}/reviews/{review_id}/events` : `DELETE ${PULL}/reviews/{review_id}`],
  call: (a, api) => reviewCall(method, a, api),
});

async function subIssueCall(method: string, a: Args, api: TwinApi): Promise<unknown> {
  if (method === 'add')
    return api.json('POST', fill(`${ISSUE}/sub_issues`, a), { body: given({ sub_issue_id: a.sub_issue_id, replace_parent: a.replace_parent }) });
  if (method === 'remove') return api.json('DELETE', fill(`${ISSUE}/sub_issue`, a), { body: { sub_issue_id: a.sub_issue_id } });
  if (method === 'reprioritize') {
    return api.json('PATCH', fill(`${ISSUE}/sub_issues/priority`, a), {
      body: given({ sub_issue_id: a.sub_issue_id, after_id: a.after_id, before_id: a.before_id }),
    });
  }
  throw new McpToolError(`unknown method: ${method}`);
}

const subIssue = (method: 'add' | 'remove'): ToolImpl => ({
  operations: [method === 'add' ? `POST ${ISSUE}/sub_issues` : `DELETE ${ISSUE}/sub_issue`],
  call: (a, api) => subIssueCall(method, a, api),
});

const IMPLEMENTED: Record<string, ToolImpl> = {
  get_me: { operations: ['GET /user'], call: (_a, api) => api.json('GET', '/user') },

  // ---- issues
  create_issue: {
    operations: [`POST ${REPO}/issues`],
    call: (a, api) => api.json('POST', fill(`${REPO}/issues`, a), { body: given({ title: a.title, body: a.body }) }),
  },
  issue_read: {
    operations: [`GET ${ISSUE}`, `GET ${ISSUE}/comments`, `GET ${ISSUE}/labels`, `GET ${ISSUE}/sub_issues`, `GET ${ISSUE}/parent`],
    call: (a, api) => {
      const sub = { get: '', get_comments: '/comments', get_labels: '/labels', get_sub_issues: '/sub_issues', get_parent: '/parent' }[String(a.method)];
      if (sub === undefined) throw new Error(`unknown method: ${String(a.method)}`);
      return api.json('GET', fill(ISSUE + sub, a), { query: sub ? paging(a) : {} });
    },
  },
  issue_write: {
    operations: [`POST ${REPO}/issues`, `PATCH ${ISSUE}`],
    call: (a, api) => {
      refuse(a, ['duplicate_of', 'issue_fields'], 'issue_write');
      const fields = given({ title: a.title, body: a.body, assignees: a.assignees, labels: a.labels, milestone: a.milestone, type: a.type });
      if (a.method === 'create') return api.json('POST', fill(`${REPO}/issues`, a), { body: fields });
      if (a.method !== 'update') throw new Error(`unknown method: ${String(a.method)}`);
      return api.json('PATCH', fill(ISSUE, a), { body: { ...fields, ...given({ state: a.state, state_reason: a.state_reason }) } });
    },
  },
  add_issue_comment: {
    operations: [`POST ${ISSUE}/comments`, `POST ${REPO}/issues/comments/{comment_id}/reactions`],
    call: (a, api) => {
      if (a.comment_id !== undefined && a.reaction !== undefined) {
        return api.json('POST', fill(`${REPO}/issues/comments/{comment_id}/reactions`, a), { body: { content: a.reaction } });
      }
      if (typeof a.body !== 'string') throw new Error('missing required parameter: body');
      return api.json('POST', fill(`${ISSUE}/comments`, a), { body: { body: a.body } });
    },
  },
  add_issue_reaction: {
    operations: [`POST ${ISSUE}/reactions`],
    call: (a, api) => api.json('POST', fill(`${ISSUE}/reactions`, a), { body: { content: a.content } }),
  },
  list_issues: {
    operations: [`GET ${REPO}/issues`],
    call: async (a, api) => {
      refuse(a, ['after', 'field_filters', 'fields'], 'list_issues');
      const sort = { CREATED_AT: 'created', UPDATED_AT: 'updated', COMMENTS: 'comments' }[String(a.orderBy)];
      const listed = await api.json('GET', fill(`${REPO}/issues`, a), {
        query: {
          state: a.state ? String(a.state).toLowerCase() : 'all',
          labels: Array.isArray(a.labels) ? a.labels.join(',') : undefined,
          sort,
          direction: a.direction ? String(a.direction).toLowerCase() : undefined,
          since: str(a.since),
          per_page: a.perPage as number | undefined,
        },
      });
      // The server lists issues (GraphQL `repository.issues`), never pull requests.
      return (listed as { pull_request?: unknown }[]).filter((i) => i.pull_request === undefined);
    },
  },
  update_issue_title: patchIssue((a) => ({ title: a.title })),
  update_issue_body: patchIssue((a) => ({ body: a.body })),
  update_issue_labels: patchIssue((a) => ({ labels: a.labels })),
  update_issue_assignees: patchIssue((a) => ({ assignees: a.assignees })),
  update_issue_milestone: patchIssue((a) => ({ milestone: a.milestone })),
  update_issue_state: {
    operations: [`PATCH ${ISSUE}`],
    call: (a, api) => {
      refuse(a, ['is_suggestion', 'duplicate_of'], 'update_issue_state');
      return api.json('PATCH', fill(ISSUE, a), { body: given({ state: a.state, state_reason: a.state_reason }) });
    },
  },

  // ---- labels
  get_label: { operations: [`GET ${REPO}/labels/{name}`], call: (a, api) => api.json('GET', fill(`${REPO}/labels/{name}`, a)) },
  list_label: { operations: [`GET ${REPO}/labels`], call: (a, api) => api.json('GET', fill(`${REPO}/labels`, a)) },
  label_write: {
    operations: [`POST ${REPO}/labels`, `PATCH ${REPO}/labels/{name}`, `DELETE ${REPO}/labels/{name}`],
    call: async (a, api) => {
      const fields = given({ color: a.color, description: a.description });
      if (a.method === 'create') return api.json('POST', fill(`${REPO}/labels`, a), { body: { name: a.name, ...fields } });
      if (a.method === 'update') return api.json('PATCH', fill(`${REPO}/labels/{name}`, a), { body: { ...given({ new_name: a.new_name }), ...fields } });
      if (a.method === 'delete') {
        await api.json('DELETE', fill(`${REPO}/labels/{name}`, a));
        return `label ${String(a.name)} deleted`;
      }
      throw new Error(`unknown method: ${String(a.method)}`);
    },
  },

  // ---- repositories, branches, files
  create_repository: {
    operations: ['POST /user/repos', 'POST /orgs/{org}/repos'],
    call: (a, api) =>
      api.json('POST', a.organization ? fill('/orgs/{org}/repos', { org: a.organization }) : '/user/repos', {
        body: given({ name: a.name, description: a.description, private: a.private, auto_init: a.autoInit }),
      }),
  },
  fork_repository: {
    operations: [`POST ${REPO}/forks`],
    call: (a, api) => api.json('POST', fill(`${REPO}/forks`, a), { body: given({ organization: a.organization }) }),
  },
  delete_repository: {
    operations: [`DELETE ${REPO}`],
    call: async (a, api) => {
      await api.json('DELETE', fill(REPO, a));
      return `repository ${String(a.owner)}/${String(a.repo)} deleted`;
    },
  },
  list_repository_collaborators: {
    operations: [`GET ${REPO}/collaborators`],
    call: (a, api) => api.json('GET', fill(`${REPO}/collaborators`, a), { query: { affiliation: str(a.affiliation), ...paging(a) } }),
  },
  list_branches: { operations: [`GET ${REPO}/branches`], call: (a, api) => api.json('GET', fill(`${REPO}/branches`, a), { query: paging(a) }) },
  create_branch: {
    operations: [`GET ${REPO}`, `GET ${REPO}/git/ref/{ref}`, `POST ${REPO}/git/refs`],
    call: async (a, api) => {
      const from = str(a.from_branch) ?? ((await api.json('GET', fill(REPO, a))) as { default_branch: string }).default_branch;
      const base = (await api.json('GET', fill(`${REPO}/git/ref/{ref}`, { ...a, ref: `heads/${from}` }))) as { object: { sha: string } };
      return api.json('POST', fill(`${REPO}/git/refs`, a), { body: { ref: `refs/heads/${String(a.branch)}`, sha: base.object.sha } });
    },
  },
  get_file_contents: {
    operations: [`GET ${CONTENTS}`],
    call: (a, api) => {
      refuse(a, ['fields'], 'get_file_contents');
      return api.json('GET', fill(CONTENTS, { ...a, path: String(a.path ?? '').replace(/^\/+/, '') || undefined }), { query: { ref: str(a.sha ?? a.ref) } });
    },
  },
  create_or_update_file: {
    operations: [`GET ${CONTENTS}`, `PUT ${CONTENTS}`],
    call: async (a, api) => {
      const sha = str(a.sha) ?? (await fileSha(api, a));
      return api.json('PUT', fill(CONTENTS, a), {
        body: given({ message: a.message, content: Buffer.from(String(a.content), 'utf8').toString('base64'), branch: a.branch, sha }),
      });
    },
  },
  delete_file: {
    operations: [`GET ${CONTENTS}`, `DELETE ${CONTENTS}`],
    call: async (a, api) => {
      const sha = await fileSha(api, a);
      if (!sha) throw new Error(`${String(a.path)} does not exist on ${String(a.branch)}`);
      return api.json('DELETE', fill(CONTENTS, a), { body: { message: a.message, sha, branch: a.branch } });
    },
  },
  push_files: {
    operations: [
      `GET ${REPO}/git/ref/{ref}`,
      `GET ${REPO}/git/commits/{commit_sha}`,
      `POST ${REPO}/git/trees`,
      `POST ${REPO}/git/commits`,
      `PATCH ${REPO}/git/refs/{ref}`,
    ],
    call: async (a, api) => {
      const ref = (await api.json('GET', fill(`${REPO}/git/ref/{ref}`, { ...a, ref: `heads/${String(a.branch)}` }))) as { object: { sha: string } };
      const head = (await api.json('GET', fill(`${REPO}/git/commits/{commit_sha}`, { ...a, commit_sha: ref.object.sha }))) as { tree: { sha: string } };
      const files = a.files as { path: string; content: string }[];
      const tree = (await api.json('POST', fill(`${REPO}/git/trees`, a), {
        body: { base_tree: head.tree.sha, tree: files.map((f) => ({ path: f.path, mode: '100644', type: 'blob', content: f.content })) },
      })) as { sha: string };
      const commit = (await api.json('POST', fill(`${REPO}/git/commits`, a), { body: { message: a.message, tree: tree.sha, parents: [ref.object.sha] } })) as {
        sha: string;
      };
      return api.json('PATCH', fill(`${REPO}/git/refs/{ref}`, { ...a, ref: `heads/${String(a.branch)}` }), { body: { sha: commit.sha } });
    },
  },
  get_repository_tree: {
    operations: [`GET ${REPO}`, `GET ${REPO}/git/trees/{tree_sha}`],
    call: async (a, api) => {
      const sha = str(a.tree_sha) ?? ((await api.json('GET', fill(REPO, a))) as { default_branch: string }).default_branch;
      const tree = (await api.json('GET', fill(`${REPO}/git/trees/{tree_sha}`, { ...a, tree_sha: sha }), {
        query: { recursive: a.recursive ? 1 : undefined },
      })) as {
        tree: { path: string }[];
      };
      const prefix = str(a.path_filter);
      return prefix ? { ...tree, tree: tree.tree.filter((e) => e.path.startsWith(prefix)) } : tree;
    },
  },
  list_commits: {
    operations: [`GET ${REPO}/commits`],
    call: (a, api) => {
      refuse(a, ['fields'], 'list_commits');
      return api.json('GET', fill(`${REPO}/commits`, a), {
        query: { sha: str(a.sha), author: str(a.author), path: str(a.path), since: str(a.since), until: str(a.until), ...paging(a) },
      });
    },
  },
  get_commit: {
    operations: [`GET ${REPO}/commits/{ref}`],
    call: (a, api) => api.json('GET', fill(`${REPO}/commits/{ref}`, { ...a, ref: a.sha }), { query: paging(a) }),
  },
  list_tags: { operations: [`GET ${REPO}/tags`], call: (a, api) => api.json('GET', fill(`${REPO}/tags`, a), { query: paging(a) }) },
  list_releases: {
    operations: [`GET ${REPO}/releases`],
    call: (a, api) => {
      refuse(a, ['fields'], 'list_releases');
      return api.json('GET', fill(`${REPO}/releases`, a), { query: paging(a) });
    },
  },
  get_latest_release: { operations: [`GET ${REPO}/releases/latest`], call: (a, api) => api.json('GET', fill(`${REPO}/releases/latest`, a)) },
  get_release_by_tag: { operations: [`GET ${REPO}/releases/tags/{tag}`], call: (a, api) => api.json('GET', fill(`${REPO}/releases/tags/{tag}`, a)) },
  star_repository: {
    operations: ['PUT /user/starred/{owner}/{repo}'],
    call: async (a, api) => {
      await api.json('PUT', fill('/user/starred/{owner}/{repo}', a));
      return `Successfully starred repository ${String(a.owner)}/${String(a.repo)}`;
    },
  },
  unstar_repository: {
    operations: ['DELETE /user/starred/{owner}/{repo}'],
    call: async (a, api) => {
      await api.json('DELETE', fill('/user/starred/{owner}/{repo}', a));
      return `Successfully unstarred repository ${String(a.owner)}/${String(a.repo)}`;
    },
  },
  get_teams: {
    operations: ['GET /user/teams'],
    call: (a, api) => {
      refuse(a, ['user'], 'get_teams');
      return api.json('GET', '/user/teams');
    },
  },
  get_team_members: {
    operations: ['GET /orgs/{org}/teams/{team_slug}/members'],
    call: (a, api) => api.json('GET', fill('/orgs/{org}/teams/{team_slug}/members', a)),
  },

  // ---- pull requests
  create_pull_request: {
    operations: [`POST ${REPO}/pulls`, `POST ${PULL}/requested_reviewers`],
    call: async (a, api) => {
      const created = (await api.json('POST', fill(`${REPO}/pulls`, a), {
        body: given({ title: a.title, head: a.head, base: a.base, body: a.body, draft: a.draft, maintainer_can_modify: a.maintainer_can_modify }),
      })) as { number: number };
      if (Array.isArray(a.reviewers) && a.reviewers.length > 0) {
        await api.json('POST', fill(`${PULL}/requested_reviewers`, { ...a, pull_number: created.number }), { body: { reviewers: a.reviewers } });
        return api.json('GET', fill(PULL, { ...a, pull_number: created.number }));
      }
      return created;
    },
  },
  list_pull_requests: {
    operations: [`GET ${REPO}/pulls`],
    call: (a, api) => {
      refuse(a, ['fields'], 'list_pull_requests');
      return api.json('GET', fill(`${REPO}/pulls`, a), {
        query: { state: str(a.state), head: str(a.head), base: str(a.base), sort: str(a.sort), direction: str(a.direction), ...paging(a) },
      });
    },
  },
  pull_request_read: {
    operations: [
      `GET ${PULL}`,
      `GET ${PULL}/files`,
      `GET ${PULL}/commits`,
      `GET ${PULL}/comments`,
      `GET ${PULL}/reviews`,
      `GET ${ISSUE}/comments`,
      `GET ${REPO}/commits/{ref}/status`,
      `GET ${REPO}/commits/{ref}/check-runs`,
    ],
    call: async (a, api) => {
      refuse(a, ['after'], 'pull_request_read');
      const p = pr(a);
      switch (a.method) {
        case 'get':
          return api.json('GET', fill(PULL, p));
        case 'get_diff':
          return api.json('GET', fill(PULL, p), { headers: { accept: 'application/vnd.github.diff' } });
        case 'get_files':
        case 'get_commits':
        case 'get_reviews': {
          const sub = { get_files: '/files', get_commits: '/commits', get_reviews: '/reviews' }[a.method];
          return api.json('GET', fill(PULL + sub, p), { query: paging(a) });
        }
        case 'get_review_comments':
          return api.json('GET', fill(`${PULL}/comments`, p), { query: paging(a) });
        case 'get_comments':
          return api.json('GET', fill(`${ISSUE}/comments`, { ...a, issue_number: a.pullNumber }), { query: paging(a) });
        case 'get_status':
        case 'get_check_runs': {
          const head = ((await api.json('GET', fill(PULL, p))) as { head: { sha: string } }).head.sha;
          const sub = a.method === 'get_status' ? '/status' : '/check-runs';
          return api.json('GET', fill(`${REPO}/commits/{ref}${sub}`, { ...a, ref: head }), { query: paging(a) });
        }
        default:
          throw new Error(`unknown method: ${String(a.method)}`);
      }
    },
  },
  update_pull_request: {
    operations: [`PATCH ${PULL}`, `POST ${PULL}/requested_reviewers`],
    call: async (a, api) => {
      refuse(a, ['draft'], 'update_pull_request');
      const fields = given({ title: a.title, body: a.body, state: a.state, base: a.base, maintainer_can_modify: a.maintainer_can_modify });
      let out = Object.keys(fields).length ? await api.json('PATCH', fill(PULL, pr(a)), { body: fields }) : undefined;
      if (Array.isArray(a.reviewers) && a.reviewers.length > 0) {
        out = await api.json('POST', fill(`${PULL}/requested_reviewers`, pr(a)), { body: { reviewers: a.reviewers } });
      }
      return out ?? api.json('GET', fill(PULL, pr(a)));
    },
  },
  update_pull_request_title: patchPull((a) => ({ title: a.title })),
  update_pull_request_body: patchPull((a) => ({ body: a.body })),
  update_pull_request_state: patchPull((a) => ({ state: a.state })),
  update_pull_request_branch: {
    operations: [`PUT ${PULL}/update-branch`],
    call: (a, api) => api.json('PUT', fill(`${PULL}/update-branch`, pr(a)), { body: given({ expected_head_sha: a.expectedHeadSha }) }),
  },
  merge_pull_request: {
    operations: [`PUT ${PULL}/merge`],
    call: (a, api) =>
      api.json('PUT', fill(`${PULL}/merge`, pr(a)), {
        body: given({ commit_title: a.commit_title, commit_message: a.commit_message, merge_method: a.merge_method }),
      }),
  },
  request_pull_request_reviewers: {
    operations: [`POST ${PULL}/requested_reviewers`],
    call: (a, api) => api.json('POST', fill(`${PULL}/requested_reviewers`, pr(a)), { body: { reviewers: a.reviewers } }),
  },

  create_pull_request_review: review('create'),
  submit_pending_pull_request_review: review('submit_pending'),
  delete_pending_pull_request_review: review('delete_pending'),
  pull_request_review_write: {
    operations: [`POST ${PULL}/reviews`, `GET ${PULL}/reviews`, `POST ${PULL}/reviews/{review_id}/events`, `DELETE ${PULL}/reviews/{review_id}`],
    call: (a, api) => {
      if (a.method === 'create' || a.method === 'submit_pending' || a.method === 'delete_pending') return reviewCall(a.method, a, api);
      throw new NotSimulated(
        `the MCP tool pull_request_review_write with method ${String(a.method)}`,
        'Review threads are resolved through GraphQL, which the twin does not model.',
      );
    },
  },
  add_reply_to_pull_request_comment: {
    operations: [`POST ${PULL}/comments/{comment_id}/replies`, `POST ${REPO}/pulls/comments/{comment_id}/reactions`],
    call: (a, api) => {
      if (a.reaction !== undefined)
        return api.json('POST', fill(`${REPO}/pulls/comments/{comment_id}/reactions`, { ...a, comment_id: a.commentId }), { body: { content: a.reaction } });
      return api.json('POST', fill(`${PULL}/comments/{comment_id}/replies`, { ...pr(a), comment_id: a.commentId }), { body: { body: a.body } });
    },
  },
  add_issue_comment_reaction: {
    operations: [`POST ${REPO}/issues/comments/{comment_id}/reactions`],
    call: (a, api) => api.json('POST', fill(`${REPO}/issues/comments/{comment_id}/reactions`, a), { body: { content: a.content } }),
  },
  add_sub_issue: subIssue('add'),
  remove_sub_issue: subIssue('remove'),
  sub_issue_write: {
    operations: [`POST ${ISSUE}/sub_issues`, `DELETE ${ISSUE}/sub_issue`, `PATCH ${ISSUE}/sub_issues/priority`],
    call: (a, api) => subIssueCall(String(a.method), a, api),
  },
  get_tag: {
    operations: [`GET ${REPO}/git/ref/{ref}`, `GET ${REPO}/git/tags/{tag_sha}`],
    call: async (a, api) => {
      const ref = (await api.json('GET', fill(`${REPO}/git/ref/{ref}`, { ...a, ref: `tags/${String(a.tag)}` }))) as { object: { sha: string; type: string } };
      // A lightweight tag has no tag object: the server reads the annotated one only.
      if (ref.object.type !== 'tag') throw new McpToolError(`failed to get tag object: ${String(a.tag)} is a lightweight tag`);
      return api.json('GET', fill(`${REPO}/git/tags/{tag_sha}`, { ...a, tag_sha: ref.object.sha }));
    },
  },
  list_issue_types: {
    operations: ['GET /orgs/{org}/issue-types'],
    call: (a, api) => api.json('GET', fill('/orgs/{org}/issue-types', { org: a.owner })),
  },
  update_issue_type: {
    operations: [`PATCH ${ISSUE}`],
    call: (a, api) => {
      refuse(a, ['is_suggestion'], 'update_issue_type');
      return api.json('PATCH', fill(ISSUE, a), { body: { type: a.issue_type } });
    },
  },
  list_starred_repositories: {
    operations: ['GET /user/starred', 'GET /users/{username}/starred'],
    call: (a, api) =>
      api.json('GET', a.username ? fill('/users/{username}/starred', a) : '/user/starred', {
        query: { sort: str(a.sort), direction: str(a.direction), ...paging(a) },
      }),
  },

  // ---- search (answered where the twin models GitHub's search, refused as it refuses otherwise)
  search_repositories: search('/search/repositories'),
  search_code: search('/search/code'),
  search_commits: search('/search/commits'),
  search_users: search('/search/users', ' type:user'),
  search_orgs: search('/search/users', ' type:org'),
  search_issues: search('/search/issues', ' is:issue'),
  search_pull_requests: search('/search/issues', ' is:pr'),
};

/** github-mcp-server's tools as published, in its order, each with the twin's way to answer it (if any). */
export const githubMcp: TwinMcp = lazyMcp(() => {
  const published = readPinnedTools<{ source: string; version: string; commit: string; path: string; tools: PublishedTool[] }>(
    new URL('../spec/mcp-tools.json', import.meta.url),
  );
  return {
    server: { name: 'github-mcp-server', version: published.version, source: `${published.source} ${published.path} at ${published.commit}` },
    tools: publishedTools(published.tools, IMPLEMENTED),
  };
});

/** The names of the tools the twin answers (for its README and tests). */
export const IMPLEMENTED_TOOLS: readonly string[] = Object.keys(IMPLEMENTED);
