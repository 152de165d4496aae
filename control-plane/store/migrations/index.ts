// Numbered migrations, applied in order at start. Add a file per migration and list it here.

import m001 from './001-identity.js';
import m002 from './002-environments.js';
import m003 from './003-seeds-scenarios.js';
import m004 from './004-tests.js';
import m005 from './005-billing.js';
import m006 from './006-hosting.js';
import m022 from './022-console-sign-in.js';
import m032 from './032-environment-fidelity-clock.js';
import m038 from './038-snapshots.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Migration[] = [m001, m002, m003, m004, m005, m006, m022, m032, m038];
