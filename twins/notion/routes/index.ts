// Every route the Notion twin answers (routes/<resource>.ts beside model/<resource>.ts).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { blockRoutes } from './blocks.js';
import { databaseRoutes } from './databases.js';
import { fileUploadRoutes } from './file-uploads.js';
import { pageRoutes } from './pages.js';
import { searchRoutes } from './search.js';
import { twinRoutes } from './twin.js';
import { userRoutes } from './users.js';
import { viewRoutes } from './views.js';

export const routes: TwinRoute[] = [
  ...userRoutes,
  ...pageRoutes,
  ...databaseRoutes,
  ...blockRoutes,
  ...searchRoutes,
  ...fileUploadRoutes,
  ...viewRoutes,
  ...twinRoutes,
];
