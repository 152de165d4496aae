// Every hand-written route of the SendGrid twin (routes/<resource>.ts beside model/<resource>.ts).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { activityRoutes } from './activity.js';
import { mailRoutes } from './mail.js';
import { suppressionRoutes } from './suppressions.js';
import { templateRoutes } from './templates.js';
import { twinRoutes } from './twin.js';
import { webhookRoutes } from './webhooks.js';

export const routes: TwinRoute[] = [...mailRoutes, ...activityRoutes, ...templateRoutes, ...suppressionRoutes, ...webhookRoutes, ...twinRoutes];
