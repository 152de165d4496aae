// Twin-only helpers (not Anthropic's API): script answers without the control plane's records API.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { scriptedResponseRoutes } from '../../../twin-runtime/llm/scripted.js';
import { invalid } from '../wire/errors.js';
import { jsonBody } from '../wire/params.js';

export const twinRoutes: TwinRoute[] = scriptedResponseRoutes(jsonBody, invalid, 'type');
