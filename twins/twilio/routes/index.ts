// Every hand-written route of the Twilio twin (routes/<resource>.ts beside model/<resource>.ts).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { accountRoutes } from './account.js';
import { availableRoutes } from './available.js';
import { callRoutes } from './calls.js';
import { messageRoutes } from './messages.js';
import { verifyRoutes } from './verify.js';

export const routes: TwinRoute[] = [...accountRoutes, ...availableRoutes, ...messageRoutes, ...callRoutes, ...verifyRoutes];
