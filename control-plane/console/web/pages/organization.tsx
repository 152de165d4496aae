// The organization: members, invitations, API keys (a new key's token is shown once), the billing
// plan, its limits and the draft invoice.

import { useState } from 'preact/hooks';
import { all, api, get, type ApiKey, type Billing, type Invitation, type Me, type Member, type Organization } from '../lib/api.js';
import { cents, dateTime, seconds } from '../lib/format.js';
import { CodeBlock, ConfirmButton, CopyButton, ErrorNote, Loading, PageHeader, TableWrap, useAction, useLoad } from '../components/ui.js';

export function OrganizationPage({ me }: { me: Me | undefined }) {
  const org = useLoad(() => get<Organization>('/organizations/current'), []);
  const admin = me?.role === 'admin';
  return (
    <section aria-labelledby="page-title">
      <PageHeader title={org.data ? org.data.name : 'Organization'} />
      <ErrorNote error={org.error} />
      {org.data && (
        <p class="facts">
          <span>You are {org.data.role === 'admin' ? 'an admin' : 'a member'}</span>
          <span>Since {dateTime(org.data.created_at)}</span>
        </p>
      )}
      <Members />
      <Invitations admin={admin} />
      <ApiKeys />
      <BillingSection />
    </section>
  );
}

function Members() {
  const members = useLoad(() => all<Member>('/organizations/current/members', 500), []);
  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <ErrorNote error={members.error} />
      {!members.data && <Loading what="members" />}
      {members.data && (
        <TableWrap label="Members">
          <table>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">Joined</th>
              </tr>
            </thead>
            <tbody>
              {members.data.map((m) => (
                <tr key={m.user_id}>
                  <th scope="row">{m.email}</th>
                  <td>{`${m.first_name} ${m.last_name}`.trim() || '—'}</td>
                  <td>{m.role}</td>
                  <td>{dateTime(m.joined_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}

function Invitations({ admin }: { admin: boolean }) {
  const invitations = useLoad(() => all<Invitation>('/organizations/current/invitations', 500), []);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'admin' | 'member'>('member');
  const invite = useAction(async () => {
    await api('POST', '/organizations/current/invitations', { email, role });
    setEmail('');
    invitations.reload();
  });
  const revoke = useAction(async (id: string) => {
    await api('DELETE', `/organizations/current/invitations/${encodeURIComponent(id)}`);
    invitations.reload();
  });
  return (
    <section aria-labelledby="invitations-title">
      <h2 id="invitations-title">Invitations</h2>
      <ErrorNote error={invitations.error ?? revoke.error} />
      {invitations.data && invitations.data.length === 0 && <p class="muted">No pending invitations.</p>}
      {invitations.data && invitations.data.length > 0 && (
        <TableWrap label="Pending invitations">
          <table>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Expires</th>
                {admin && (
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {invitations.data.map((i) => (
                <tr key={i.id}>
                  <th scope="row">{i.email}</th>
                  <td>{i.role}</td>
                  <td>{dateTime(i.expires_at)}</td>
                  {admin && (
                    <td>
                      <ConfirmButton label="Revoke" confirmLabel={`Revoke the invitation of ${i.email}`} onConfirm={() => revoke.run(i.id)} />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {admin ? (
        <form
          class="inline-form"
          aria-label="Invite a member"
          onSubmit={(e) => {
            e.preventDefault();
            void invite.run();
          }}
        >
          <div class="field grow">
            <label for="invite-email">Email</label>
            <input id="invite-email" type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} autoComplete="off" />
          </div>
          <div class="field">
            <label for="invite-role">Role</label>
            <select id="invite-role" value={role} onChange={(e) => setRole(e.currentTarget.value as 'admin' | 'member')}>
              <option value="member">member</option>
              <option value="admin">admin</option>
            </select>
          </div>
          <button type="submit" class="primary" disabled={invite.busy}>
            Invite
          </button>
        </form>
      ) : (
        <p class="muted">Admins invite members.</p>
      )}
      <ErrorNote error={invite.error} />
    </section>
  );
}

function ApiKeys() {
  const keys = useLoad(() => all<ApiKey>('/organizations/current/api-keys', 500), []);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ name: string; token: string } | undefined>();
  const create = useAction(async () => {
    const key = await api<ApiKey & { token: string }>('POST', '/organizations/current/api-keys', { name });
    setCreated({ name: key.name, token: key.token });
    setName('');
    keys.reload();
  });
  const revoke = useAction(async (id: string) => {
    await api('DELETE', `/organizations/current/api-keys/${id}`);
    keys.reload();
  });
  const now = Date.now();
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <p class="muted">For agents, SDKs and CI. A key acts with the role of the member who created it.</p>
      {created && (
        <div class="card notice" role="alert">
          <h3>Key “{created.name}” created</h3>
          <p>Copy its token now: it is shown this once and can never be shown again.</p>
          <CodeBlock label="New API key token" text={created.token} class="secret" />
          <div class="actions">
            <CopyButton text={created.token} label="Copy token" class="primary" />
            <button type="button" class="secondary" onClick={() => setCreated(undefined)}>
              I have stored it
            </button>
          </div>
        </div>
      )}
      <ErrorNote error={keys.error ?? revoke.error} />
      {keys.data && keys.data.length === 0 && <p class="muted">No API keys.</p>}
      {keys.data && keys.data.length > 0 && (
        <TableWrap label="API keys">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Created by</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((k) => (
                <tr key={k.id}>
                  <th scope="row">{k.name}</th>
                  <td>{k.created_by.email}</td>
                  <td>{dateTime(k.created_at)}</td>
                  <td>
                    {dateTime(k.expires_at)}
                    {new Date(k.expires_at).getTime() <= now && <span class="badge warn">expired</span>}
                  </td>
                  <td>
                    <ConfirmButton label="Revoke" confirmLabel={`Revoke key ${k.name}`} onConfirm={() => revoke.run(k.id)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <form
        class="inline-form"
        aria-label="Create an API key"
        onSubmit={(e) => {
          e.preventDefault();
          void create.run();
        }}
      >
        <div class="field grow">
          <label for="key-name">Key name</label>
          <input id="key-name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="ci" autoComplete="off" />
        </div>
        <button type="submit" class="primary" disabled={create.busy}>
          Create API key
        </button>
      </form>
      <ErrorNote error={create.error} />
    </section>
  );
}

function BillingSection() {
  const billing = useLoad(() => get<Billing>('/organizations/current/billing'), []);
  const b = billing.data;
  return (
    <section aria-labelledby="billing-title">
      <h2 id="billing-title">Billing</h2>
      <ErrorNote error={billing.error} />
      {!b && billing.loading && <Loading what="billing" />}
      {b && (
        <>
          <dl class="pairs">
            <dt>Plan</dt>
            <dd>{b.plan === 'paygo' ? 'Pay as you go' : 'Free'}</dd>
            <dt>Environment lifetime</dt>
            <dd>{seconds(b.max_environment_seconds)}</dd>
            <dt>Twins running at once</dt>
            <dd>
              {b.active_twins} of {b.max_parallel_twins ?? 'no limit'}
            </dd>
            <dt>AI generation (seeds, tests in words)</dt>
            <dd>{b.ai_generation_enabled ? 'included' : 'not included'}</dd>
            <dt>Remaining credit</dt>
            <dd>{cents(b.remaining_credit_cents)}</dd>
          </dl>
          <h3>Draft invoice</h3>
          {!b.invoice ? (
            <p class="muted">No draft invoice: {b.ready ? 'nothing billed in this period yet.' : 'billing is not set up for this organization.'}</p>
          ) : (
            <>
              <p>
                {dateTime(b.invoice.period_start)} → {dateTime(b.invoice.period_end)} · total <strong>{cents(b.invoice.total_cents)}</strong>
                {b.invoice.credits_applied_cents > 0 && ` (credits applied ${cents(b.invoice.credits_applied_cents)})`}
              </p>
              {b.invoice.line_items.length === 0 ? (
                <p class="muted">No usage in this period yet.</p>
              ) : (
                <TableWrap label="Invoice lines">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Item</th>
                        <th scope="col">Twin</th>
                        <th scope="col">Quantity</th>
                        <th scope="col">Unit price</th>
                        <th scope="col">Total</th>
                      </tr>
                    </thead>
                    <tbody>
                      {b.invoice.line_items.map((l, i) => (
                        <tr key={i}>
                          <th scope="row">{l.name}</th>
                          <td>{l.twin}</td>
                          <td class="num">{l.quantity}</td>
                          <td class="num">{cents(l.unit_price_cents)}</td>
                          <td class="num">{cents(l.total_cents)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableWrap>
              )}
            </>
          )}
        </>
      )}
    </section>
  );
}
