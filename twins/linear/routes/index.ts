// The Linear API is one endpoint: POST /graphql. Its resolvers are the type models of routes/<resource>.ts beside model/<resource>.ts.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { LinearGraphQL } from '../wire/graphql.js';
import { mergeModels } from '../wire/types.js';
import { attachmentModels } from './attachments.js';
import { commentModels } from './comments.js';
import { issueModels } from './issues.js';
import { projectModels } from './projects.js';
import { relationModels } from './relations.js';
import { webhookModels } from './webhooks.js';
import { workspaceModels } from './workspace.js';

export const linearGraphQL = new LinearGraphQL(
  mergeModels(workspaceModels, issueModels, commentModels, attachmentModels, relationModels, projectModels, webhookModels),
);

export const routes: TwinRoute[] = [{ method: 'POST', path: '/graphql', handler: (req, ctx) => linearGraphQL.run(req, ctx) }];
