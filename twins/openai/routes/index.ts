// Every route of the OpenAI twin (routes/<resource>.ts beside model/<resource>.ts).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { answerScriptedErrors } from '../../../twin-runtime/llm/scripted.js';
import { renderOpenAIError } from '../wire/errors.js';
import { audioRoutes } from './audio.js';
import { batchRoutes } from './batches.js';
import { chatCompletionRoutes } from './chat-completions.js';
import { containerRoutes } from './containers.js';
import { conversationRoutes } from './conversations.js';
import { embeddingRoutes } from './embeddings.js';
import { evalRoutes } from './evals.js';
import { fileRoutes } from './files.js';
import { fineTuningRoutes } from './fine-tuning.js';
import { graderRoutes } from './graders.js';
import { imageRoutes } from './images.js';
import { moderationRoutes } from './moderations.js';
import { modelRoutes } from './models.js';
import { responseRoutes } from './responses.js';
import { skillRoutes } from './skills.js';
import { twinRoutes } from './twin.js';
import { uploadRoutes } from './uploads.js';
import { vectorStoreRoutes } from './vector-stores.js';

export const routes: TwinRoute[] = [
  ...chatCompletionRoutes,
  ...responseRoutes,
  ...conversationRoutes,
  ...embeddingRoutes,
  ...moderationRoutes,
  ...modelRoutes,
  ...fileRoutes,
  ...uploadRoutes,
  ...vectorStoreRoutes,
  ...containerRoutes,
  ...fineTuningRoutes,
  ...skillRoutes,
  ...imageRoutes,
  ...audioRoutes,
  ...evalRoutes,
  ...graderRoutes,
  ...batchRoutes,
  ...twinRoutes,
  // A scripted error is answered, not thrown, so the script's count of answered calls stays.
].map((r) => answerScriptedErrors(r, renderOpenAIError));
