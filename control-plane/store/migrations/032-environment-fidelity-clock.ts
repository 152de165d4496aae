import type { Migration } from './index.js';

// Each environment's fidelity and how its clock moves (decisions §15). Environments created before
// ran a frozen clock, and keep it. A living clock reads `clock` at wall time `clock_wall` and runs on
// from there (orchestration/clock.ts); a frozen one reads `clock`. Numbered after the issue that
// added it (#32) so it does not collide with migrations written at the same time.
const migration: Migration = {
  version: 32,
  name: 'environment-fidelity-clock',
  sql: `
ALTER TABLE environments ADD COLUMN fidelity TEXT NOT NULL DEFAULT 'strict';
ALTER TABLE environments ADD COLUMN clock_mode TEXT NOT NULL DEFAULT 'frozen';
ALTER TABLE environments ADD COLUMN clock_wall TEXT;
`,
};

export default migration;
