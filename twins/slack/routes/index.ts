// Every Web API method the twin answers, as runtime routes (routes/<resource>.ts beside
// model/<resource>.ts).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { conversationMethods } from './conversations.js';
import { messageMethods } from './messages.js';
import { methodRoutes, type MethodTable } from '../wire/method.js';
import { reactionMethods } from './reactions.js';
import { scheduledMethods } from './scheduled.js';
import { settingMethods } from './settings.js';
import { workspaceMethods } from './workspace.js';
import { viewMethods } from './views.js';
import { interactivityMethods, responseUrlRoutes } from './interactivity.js';
import { oauthMethods, oauthRoutes } from './oauth.js';
import { searchMethods } from './search.js';
import { assistantMethods } from './assistant.js';
import { fileMethods, fileRoutes } from './files.js';
import { pinMethods } from './pins.js';
import { usergroupMethods } from './usergroups.js';
import { reminderMethods } from './reminders.js';

export const METHODS: MethodTable = {
  ...workspaceMethods,
  ...conversationMethods,
  ...messageMethods,
  ...scheduledMethods,
  ...reactionMethods,
  ...settingMethods,
  ...viewMethods,
  ...interactivityMethods,
  ...oauthMethods,
  ...searchMethods,
  ...assistantMethods,
  ...fileMethods,
  ...pinMethods,
  ...usergroupMethods,
  ...reminderMethods,
};

export const routes: TwinRoute[] = [...methodRoutes(METHODS), ...responseUrlRoutes, ...oauthRoutes, ...fileRoutes];
