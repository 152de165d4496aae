// Numbered migrations, applied in order at start. Add a file per migration and list it here.

import m001 from './001-identity.js';
import m002 from './002-environments.js';
import m003 from './003-seeds-scenarios.js';
import m004 from './004-tests.js';
import m005 from './005-billing.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Migration[] = [m001, m002, m003, m004, m005];
