// `GET /`: the API's root, a map of URL templates, answered without credentials as api.github.com
// does (gh reads the token's scopes from this answer's `X-OAuth-Scopes`).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { API, WEB } from '../model/identity.js';
import { routes } from '../wire/http.js';

const q = '?q={query}{&page,per_page,sort,order}';

const ROOT = {
  current_user_url: `${API}/user`,
  current_user_authorizations_html_url: `${WEB}/settings/connections/applications{/client_id}`,
  authorizations_url: `${API}/authorizations`,
  code_search_url: `${API}/search/code${q}`,
  commit_search_url: `${API}/search/commits${q}`,
  emails_url: `${API}/user/emails`,
  emojis_url: `${API}/emojis`,
  events_url: `${API}/events`,
  feeds_url: `${API}/feeds`,
  followers_url: `${API}/user/followers`,
  following_url: `${API}/user/following{/target}`,
  gists_url: `${API}/gists{/gist_id}`,
  hub_url: `${API}/hub`,
  issue_search_url: `${API}/search/issues${q}`,
  issues_url: `${API}/issues`,
  keys_url: `${API}/user/keys`,
  label_search_url: `${API}/search/labels?q={query}&repository_id={repository_id}{&page,per_page}`,
  notifications_url: `${API}/notifications`,
  organization_url: `${API}/orgs/{org}`,
  organization_repositories_url: `${API}/orgs/{org}/repos{?type,page,per_page,sort}`,
  organization_teams_url: `${API}/orgs/{org}/teams`,
  public_gists_url: `${API}/gists/public`,
  rate_limit_url: `${API}/rate_limit`,
  repository_url: `${API}/repos/{owner}/{repo}`,
  repository_search_url: `${API}/search/repositories${q}`,
  current_user_repositories_url: `${API}/user/repos{?type,page,per_page,sort}`,
  starred_url: `${API}/user/starred{/owner}{/repo}`,
  starred_gists_url: `${API}/gists/starred`,
  topic_search_url: `${API}/search/topics?q={query}{&page,per_page}`,
  user_url: `${API}/users/{user}`,
  user_organizations_url: `${API}/user/orgs`,
  user_repositories_url: `${API}/users/{user}/repos{?type,page,per_page,sort}`,
  user_search_url: `${API}/search/users${q}`,
};

export const metaRoutes: TwinRoute[] = routes('GET', '/', () => ({ body: ROOT })).map((r) => ({ ...r, public: true }));
