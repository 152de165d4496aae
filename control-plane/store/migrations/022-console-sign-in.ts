import type { Migration } from './index.js';

// One-time console sign-in tickets (`twins console`): a ticket's id is recorded when it is
// redeemed, so the same sign-in URL never signs in twice. Rows are dropped once the ticket has
// expired (it could not be redeemed any more anyway). Numbered after the issue that added it so it
// does not collide with migrations written at the same time.
const migration: Migration = {
  version: 22,
  name: 'console-sign-in',
  sql: `
CREATE TABLE console_sign_in_tickets (
  jti TEXT PRIMARY KEY,
  redeemed_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX console_sign_in_tickets_expiry ON console_sign_in_tickets (expires_at);
`,
};

export default migration;
