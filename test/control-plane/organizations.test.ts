// The current user, the active organization and its members, and the billing summary.

import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestControlPlane } from '../helpers/control-plane.js';
import { openDatabase } from '../../control-plane/store/database.js';
import { billingSummary, countActiveTwins } from '../../control-plane/billing/summary.js';

t.test('users/me, organizations/current, members (paged, newest first)', async (t) => {
  const cp = await startTestControlPlane();
  t.teardown(() => cp.stop());
  const ada = await cp.token({ email: 'ada@example.com', org: 'acme', role: 'admin', firstName: 'Ada', lastName: 'Lovelace' });
  const me = await cp.call('GET', '/users/me', { token: ada });
  t.equal(me.status, 200);
  t.same(Object.keys(me.body).sort(), ['created_at', 'email', 'first_name', 'id', 'last_name', 'organization_id', 'role']);
  t.match(me.body, { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', role: 'admin' });
  const org = await cp.call('GET', '/organizations/current', { token: ada });
  t.same(Object.keys(org.body).sort(), ['created_at', 'id', 'name', 'role']);
  t.equal(org.body.name, 'acme');
  t.equal(org.body.id, me.body.organization_id);

  for (const [i, email] of ['b@example.com', 'c@example.com', 'd@example.com'].entries()) {
    await new Promise((r) => setTimeout(r, 5));
    const tok = await cp.token({ email, org: 'acme', role: i === 0 ? 'admin' : 'member' });
    t.equal((await cp.call('GET', '/users/me', { token: tok })).status, 200);
  }
  const members = await cp.call('GET', '/organizations/current/members?size=3', { token: ada });
  t.equal(members.body.total, 4);
  t.equal(members.body.pages, 2);
  t.same(
    members.body.items.map((m: { email: string }) => m.email),
    ['d@example.com', 'c@example.com', 'b@example.com'],
  );
  t.same(Object.keys(members.body.items[0]).sort(), ['email', 'first_name', 'joined_at', 'last_name', 'role', 'user_id']);
  const page2 = await cp.call('GET', '/organizations/current/members?size=3&page=2', { token: ada });
  t.same(
    page2.body.items.map((m: { email: string }) => m.email),
    ['ada@example.com'],
  );

  // The same user in another organization sees only that one.
  const elsewhere = await cp.token({ email: 'ada@example.com', org: 'globex', role: 'member' });
  const other = await cp.call('GET', '/organizations/current', { token: elsewhere });
  t.equal(other.body.name, 'globex');
  t.equal(other.body.role, 'member');
  t.equal((await cp.call('GET', '/organizations/current/members', { token: elsewhere })).body.total, 1);
  t.equal((await cp.call('GET', '/users/me', { token: ada })).body.role, 'admin', 'role is per organization');
});

t.test('billing summary and upgrade without a payment processor', async (t) => {
  const cp = await startTestControlPlane({ defaultPlan: 'free', paymentProcessor: 'none' });
  t.teardown(() => cp.stop());
  const admin = await cp.token({ email: 'ada@example.com', org: 'acme', role: 'admin' });
  const member = await cp.token({ email: 'bob@example.com', org: 'acme', role: 'member' });
  const billing = await cp.call('GET', '/organizations/current/billing', { token: member });
  t.equal(billing.status, 200);
  t.same(billing.body, {
    plan: 'free',
    max_environment_seconds: 3600,
    max_parallel_twins: 3,
    ai_generation_enabled: false,
    active_twins: 0,
    storage_bytes: 0,
    ready: false,
    upgrade_available: false,
    remaining_credit_cents: null,
    invoice: null,
    past_due: false,
    notice: null,
  });
  const upgrade = await cp.call('POST', '/organizations/current/billing/upgrade', { token: admin, body: { checkout_session: 'cs_test_1' } });
  t.equal(upgrade.status, 409);
  t.match(upgrade.body.detail, /No payment processor/);
  t.equal((await cp.call('POST', '/organizations/current/billing/upgrade', { token: member, body: { checkout_session: 'cs_test_1' } })).status, 403);
  const key = (await cp.call('POST', '/organizations/current/api-keys', { token: admin, body: { name: 'k' } })).body.token;
  t.equal((await cp.call('POST', '/organizations/current/billing/upgrade', { token: key, body: { checkout_session: 'cs_test_1' } })).status, 403);
  const bad = await cp.call('POST', '/organizations/current/billing/upgrade', { token: admin, body: { checkout_session: '' } });
  t.equal(bad.status, 422);
  t.equal(bad.body.detail[0].type, 'string_too_short');
  t.equal((await cp.call('POST', '/organizations/current/billing/checkout', { token: admin })).status, 409);
});

t.test('TWINS_DEFAULT_PLAN=paygo starts organizations on pay as you go', async (t) => {
  const cp = await startTestControlPlane({ defaultPlan: 'paygo' });
  t.teardown(() => cp.stop());
  const b = await cp.call('GET', '/organizations/current/billing', { token: await cp.token({}) });
  t.match(b.body, { plan: 'paygo', max_environment_seconds: null, max_parallel_twins: null, ai_generation_enabled: true });
});

t.test('active_twins counts running, undeleted twins of the organization only', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'twins-billing-'));
  const db = openDatabase(join(dir, 'cp.sqlite'));
  t.teardown(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const now = new Date().toISOString();
  for (const org of ['o1', 'o2']) {
    db.prepare('INSERT INTO organizations (id, external_id, name, plan, created_at) VALUES (?, ?, ?, ?, ?)').run(org, org, org, 'free', now);
    db.prepare(
      'INSERT INTO environments (id, organization_id, sandbox_id, slug, name, status, clock, clock_start, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(`env-${org}`, org, `sb-${org}`, 'e', 'e', 'ready', now, now, now);
  }
  const twin = db.prepare(
    `INSERT INTO environment_twins (id, environment_id, organization_id, twin_slug, twin_version, desired_state, state, admin_secret, data_file, created_at, deleted_at)
     VALUES (?, ?, ?, 'stripe', '1', ?, 'ready', 's', 'f', ?, ?)`,
  );
  twin.run('t1', 'env-o1', 'o1', 'running', now, null);
  twin.run('t2', 'env-o1', 'o1', 'running', now, null);
  twin.run('t3', 'env-o1', 'o1', 'stopped', now, null);
  twin.run('t4', 'env-o1', 'o1', 'running', now, now);
  twin.run('t5', 'env-o2', 'o2', 'running', now, null);
  t.equal(countActiveTwins(db, 'o1'), 2);
  t.equal(countActiveTwins(db, 'o2'), 1);
  t.equal(billingSummary(db, { id: 'o1', plan: 'free' }).active_twins, 2);
  t.equal(billingSummary(db, { id: 'o1', plan: 'mystery' }).plan, 'free', 'unknown plan names fall back to free');
});
