// Every route of the Anthropic twin (routes/<resource>.ts beside model/<resource>.ts).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { answerScriptedErrors } from '../../../twin-runtime/llm/scripted.js';
import { renderAnthropicError } from '../wire/errors.js';
import { batchRoutes } from './batches.js';
import { fileRoutes } from './files.js';
import { memoryStoreRoutes } from './memory-stores.js';
import { messageRoutes } from './messages.js';
import { modelRoutes } from './models.js';
import { skillRoutes } from './skills.js';
import { twinRoutes } from './twin.js';
import { vaultRoutes } from './vaults.js';

// A scripted error is answered, not thrown, so the script's count of answered calls stays.
export const routes: TwinRoute[] = [
  ...messageRoutes,
  ...batchRoutes,
  ...fileRoutes,
  ...skillRoutes,
  ...memoryStoreRoutes,
  ...vaultRoutes,
  ...modelRoutes,
  ...twinRoutes,
].map((r) => answerScriptedErrors(r, renderAnthropicError));
