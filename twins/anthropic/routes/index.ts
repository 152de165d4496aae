// Every route of the Anthropic twin (routes/<resource>.ts beside model/<resource>.ts).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { batchRoutes } from './batches.js';
import { messageRoutes } from './messages.js';
import { modelRoutes } from './models.js';
import { twinRoutes } from './twin.js';

export const routes: TwinRoute[] = [...messageRoutes, ...batchRoutes, ...modelRoutes, ...twinRoutes];
