// Numbered migrations, applied in order at start. Add a file per migration and list it here.

import m001 from './001-identity.js';
import m002 from './002-environments.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Migration[] = [m001, m002];
