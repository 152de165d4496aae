// Every Web API method the twin answers, as runtime routes.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { authTeamMethods } from './auth-team.js';
import { chatMethods } from './chat.js';
import { conversationMethods } from './conversations.js';
import { methodRoutes, type MethodTable } from '../wire/method.js';
import { reactionMethods } from './reactions.js';
import { twinMethods } from './twin.js';
import { userMethods } from './users.js';

export const METHODS: MethodTable = {
  ...authTeamMethods,
  ...userMethods,
  ...conversationMethods,
  ...chatMethods,
  ...reactionMethods,
  ...twinMethods,
};

export const routes: TwinRoute[] = methodRoutes(METHODS);
