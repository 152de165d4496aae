// Every REST route the Jira twin answers (routes/<resource>.ts beside model/<resource>.ts).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { catalogueRoutes } from './catalogue.js';
import { changelogRoutes } from './changelog.js';
import { createMetaRoutes } from './createmeta.js';
import { filterRoutes } from './filters.js';
import { issueRoutes } from './issues.js';
import { linkRoutes } from './links.js';
import { preferenceRoutes } from './preferences.js';
import { releaseRoutes } from './releases.js';
import { remoteLinkRoutes } from './remotelinks.js';
import { userRoutes } from './users.js';
import { voteRoutes } from './votes.js';
import { watcherRoutes } from './watchers.js';
import { workspaceRoutes } from './workspace.js';
import { worklogRoutes } from './worklogs.js';

export const routes: TwinRoute[] = [
  ...workspaceRoutes,
  ...catalogueRoutes,
  ...createMetaRoutes,
  ...issueRoutes,
  ...changelogRoutes,
  ...watcherRoutes,
  ...voteRoutes,
  ...linkRoutes,
  ...userRoutes,
  ...worklogRoutes,
  ...releaseRoutes,
  ...filterRoutes,
  ...remoteLinkRoutes,
  ...preferenceRoutes,
];
