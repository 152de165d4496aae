// Environments: the list with status and expiry, and creating one from twins (each optionally
// from a seed) or from a scenario.

import { useState } from 'preact/hooks';
import { all, api, get, type CatalogTwin, type Environment, type Scenario, type Seed } from '../lib/api.js';
import { href, navigate } from '../lib/router.js';
import { dateTime, relative } from '../lib/format.js';
import { Badge, ErrorNote, Loading, PageHeader, TableWrap, useAction, useInterval, useLoad } from '../components/ui.js';

const SETTLING = new Set(['provisioning', 'stopping']);

export function EnvironmentsPage() {
  const envs = useLoad(() => all<Environment>('/environments', 500), []);
  const [creating, setCreating] = useState(false);
  useInterval(envs.reload, 1000, !!envs.data?.some((e) => SETTLING.has(e.status)));
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Environments">
        {!creating && (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            New environment
          </button>
        )}
      </PageHeader>
      {creating && <CreateEnvironment onCancel={() => setCreating(false)} />}
      <ErrorNote error={envs.error} />
      {!envs.data && envs.loading && <Loading what="environments" />}
      {envs.data && envs.data.length === 0 && <p>No environments yet. Create one to get twins with their own URLs and keys.</p>}
      {envs.data && envs.data.length > 0 && (
        <TableWrap label="Environments">
          <table>
            <caption class="visually-hidden">Environments of this organization, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Twins</th>
                <th scope="col">Clock</th>
                <th scope="col">Fidelity</th>
                <th scope="col">Expires</th>
              </tr>
            </thead>
            <tbody>
              {envs.data.map((e) => (
                <tr key={e.id}>
                  <th scope="row">
                    <a href={href('environments', e.id)}>{e.name}</a>
                  </th>
                  <td>
                    <Badge status={e.status} />
                  </td>
                  <td>{e.twins.map((t) => t.twin_slug).join(', ') || '—'}</td>
                  <td>
                    {dateTime(e.clock)} <span class="muted">{e.clock_mode}</span>
                  </td>
                  <td>{e.fidelity}</td>
                  <td title={dateTime(e.expires_at)}>{e.expires_at ? relative(e.expires_at) : 'never'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}

interface Choices {
  catalog: CatalogTwin[];
  seeds: Seed[];
  scenarios: Scenario[];
}

async function loadChoices(): Promise<Choices> {
  const [catalog, seeds, scenarios] = await Promise.all([get<CatalogTwin[]>('/twins/catalog'), get<Seed[]>('/seeds'), all<Scenario>('/scenarios', 200)]);
  return { catalog, seeds, scenarios };
}

function CreateEnvironment({ onCancel }: { onCancel: () => void }) {
  const choices = useLoad(loadChoices, []);
  const [name, setName] = useState('dev');
  const [from, setFrom] = useState<'twins' | 'scenario'>('twins');
  const [picked, setPicked] = useState<Record<string, boolean>>({});
  const [seedFor, setSeedFor] = useState<Record<string, string>>({});
  const [scenario, setScenario] = useState('');
  const [ttlMinutes, setTtlMinutes] = useState('');
  const [fidelity, setFidelity] = useState<'strict' | 'lenient'>('strict');
  const [clock, setClock] = useState<'living' | 'frozen'>('living');
  const create = useAction(async () => {
    const body: Record<string, unknown> = { name, fidelity, clock };
    if (from === 'twins')
      body.twins = Object.keys(picked)
        .filter((s) => picked[s])
        .map((twin) => ({ twin, seed_id: seedFor[twin] || null }));
    else body.scenario_id = scenario;
    if (ttlMinutes) body.ttl_seconds = Math.round(Number(ttlMinutes) * 60);
    const env = await api<Environment>('POST', '/environments', body);
    navigate(href('environments', env.id));
  });
  const c = choices.data;
  return (
    <form
      class="card"
      aria-labelledby="create-env-title"
      onSubmit={(e) => {
        e.preventDefault();
        void create.run();
      }}
    >
      <h2 id="create-env-title">New environment</h2>
      <ErrorNote error={choices.error} />
      <div class="field">
        <label for="env-name">Name</label>
        <input id="env-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </div>
      <fieldset>
        <legend>Start from</legend>
        <label class="inline">
          <input type="radio" name="env-from" checked={from === 'twins'} onChange={() => setFrom('twins')} /> Twins
        </label>
        <label class="inline">
          <input type="radio" name="env-from" checked={from === 'scenario'} onChange={() => setFrom('scenario')} /> A scenario
        </label>
      </fieldset>
      {!c && choices.loading && <Loading what="the catalog" />}
      {c && from === 'twins' && (
        <fieldset>
          <legend>Twins</legend>
          {c.catalog.map((t) => {
            const seeds = c.seeds.filter((s) => s.twin === t.slug && s.status === 'ready' && s.usable);
            return (
              <div class="twin-choice" key={t.slug}>
                <label class="inline">
                  <input type="checkbox" checked={!!picked[t.slug]} onChange={(e) => setPicked({ ...picked, [t.slug]: e.currentTarget.checked })} /> {t.name}
                  <span class="muted"> · {t.description}</span>
                </label>
                {picked[t.slug] && seeds.length > 0 && (
                  <div class="field nested">
                    <label for={`seed-${t.slug}`}>Seed for {t.name}</label>
                    <select id={`seed-${t.slug}`} value={seedFor[t.slug] ?? ''} onChange={(e) => setSeedFor({ ...seedFor, [t.slug]: e.currentTarget.value })}>
                      <option value="">Empty (the twin's starting state)</option>
                      {seeds.map((s) => (
                        <option key={s.id} value={s.id}>
                          {s.name}
                        </option>
                      ))}
                    </select>
                  </div>
                )}
              </div>
            );
          })}
        </fieldset>
      )}
      {c && from === 'scenario' && (
        <div class="field">
          <label for="env-scenario">Scenario</label>
          {c.scenarios.length === 0 ? (
            <p class="muted" id="env-scenario">
              No scenarios yet: <a href={href('scenarios')}>create one</a>.
            </p>
          ) : (
            <select id="env-scenario" required value={scenario} onChange={(e) => setScenario(e.currentTarget.value)}>
              <option value="">Choose a scenario</option>
              {c.scenarios.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name} ({s.twins.map((t) => t.twin).join(', ')})
                </option>
              ))}
            </select>
          )}
        </div>
      )}
      <div class="field">
        <label for="env-ttl">Lifetime in minutes (optional; the plan may cap it)</label>
        <input id="env-ttl" type="number" min={1} inputMode="numeric" value={ttlMinutes} onInput={(e) => setTtlMinutes(e.currentTarget.value)} />
      </div>
      <fieldset>
        <legend>Clock</legend>
        <label class="inline">
          <input type="radio" name="env-clock" checked={clock === 'living'} onChange={() => setClock('living')} /> Living
          <span class="muted"> · runs with wall time, as at the provider; advance moves it further</span>
        </label>
        <label class="inline">
          <input type="radio" name="env-clock" checked={clock === 'frozen'} onChange={() => setClock('frozen')} /> Frozen
          <span class="muted"> · moves only when advanced: the same requests give the same answers, byte for byte</span>
        </label>
      </fieldset>
      <fieldset>
        <legend>Fidelity</legend>
        <label class="inline">
          <input type="radio" name="env-fidelity" checked={fidelity === 'strict'} onChange={() => setFidelity('strict')} /> Strict
          <span class="muted"> · what a twin does not simulate is refused in the provider's own error shape</span>
        </label>
        <label class="inline">
          <input type="radio" name="env-fidelity" checked={fidelity === 'lenient'} onChange={() => setFidelity('lenient')} /> Lenient
          <span class="muted"> · permissive answers instead, for smoke tests that want any 2xx</span>
        </label>
      </fieldset>
      <ErrorNote error={create.error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={create.busy}>
          Create environment
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
