// Every core (non-billing) Stripe route, in match order (static segments such as `/search` come
// before the `{id}` templates they would otherwise fall into).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { catalogRoutes } from './catalog.js';
import { chargeRoutes } from './charges.js';
import { customerRoutes } from './customers.js';
import { eventRoutes } from './events.js';
import { intentRoutes } from './intents.js';
import { paymentMethodRoutes } from './payment-methods.js';
import { webhookRoutes } from './webhooks.js';

export const coreRoutes: TwinRoute[] = [
  ...customerRoutes,
  ...catalogRoutes,
  ...paymentMethodRoutes,
  ...intentRoutes,
  ...chargeRoutes,
  ...eventRoutes,
  ...webhookRoutes,
];
