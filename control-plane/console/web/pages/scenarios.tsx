// Scenarios: named starting setups (which twins, each from which seed) environments are made from.

import { useState } from 'preact/hooks';
import { all, api, get, type CatalogTwin, type Environment, type Scenario, type Seed } from '../lib/api.js';
import { href, navigate } from '../lib/router.js';
import { dateTime } from '../lib/format.js';
import { ConfirmButton, ErrorNote, Loading, PageHeader, TableWrap, useAction, useLoad } from '../components/ui.js';

export function ScenariosPage() {
  const scenarios = useLoad(() => all<Scenario>('/scenarios', 500), []);
  const seeds = useLoad(() => get<Seed[]>('/seeds'), []);
  const catalog = useLoad(() => get<CatalogTwin[]>('/twins/catalog'), []);
  const seedName = new Map((seeds.data ?? []).map((s) => [s.id, s.name]));
  const remove = useAction(async (id: string) => {
    await api('DELETE', `/scenarios/${id}`);
    scenarios.reload();
  });
  const start = useAction(async (s: Scenario) => {
    const env = await api<Environment>('POST', '/environments', { name: s.name, scenario_id: s.id });
    navigate(href('environments', env.id));
  });
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Scenarios" />
      <ErrorNote error={scenarios.error ?? remove.error ?? start.error} />
      {!scenarios.data && scenarios.loading && <Loading what="scenarios" />}
      {scenarios.data && scenarios.data.length === 0 && <p>No scenarios yet.</p>}
      {scenarios.data && scenarios.data.length > 0 && (
        <TableWrap label="Scenarios">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Twins (seed)</th>
                <th scope="col">Updated</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {scenarios.data.map((s) => (
                <tr key={s.id}>
                  <th scope="row">
                    {s.name}
                    {s.description && <div class="muted small">{s.description}</div>}
                  </th>
                  <td>{s.twins.map((t) => `${t.twin}${t.seed_id ? ` (${seedName.get(t.seed_id) ?? 'seed'})` : ''}`).join(', ')}</td>
                  <td>{dateTime(s.updated_at)}</td>
                  <td class="row-actions">
                    <button type="button" class="secondary small" disabled={start.busy} onClick={() => start.run(s)}>
                      Start environment
                    </button>
                    <ConfirmButton label="Delete" confirmLabel={`Delete scenario ${s.name}`} onConfirm={() => remove.run(s.id)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {catalog.data && seeds.data && <CreateScenario catalog={catalog.data} seeds={seeds.data} onCreated={scenarios.reload} />}
    </section>
  );
}

function CreateScenario({ catalog, seeds, onCreated }: { catalog: CatalogTwin[]; seeds: Seed[]; onCreated: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [picked, setPicked] = useState<Record<string, boolean>>({});
  const [seedFor, setSeedFor] = useState<Record<string, string>>({});
  const create = useAction(async () => {
    const twins = catalog.filter((t) => picked[t.slug]).map((t) => ({ twin: t.slug, seed_id: seedFor[t.slug] || null }));
    await api('POST', '/scenarios', { name, description, twins });
    setName('');
    setDescription('');
    setPicked({});
    onCreated();
  });
  return (
    <form
      class="card"
      aria-labelledby="new-scenario-title"
      onSubmit={(e) => {
        e.preventDefault();
        void create.run();
      }}
    >
      <h2 id="new-scenario-title">New scenario</h2>
      <div class="field">
        <label for="scenario-name">Name</label>
        <input id="scenario-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="scenario-description">Description</label>
        <textarea id="scenario-description" maxLength={4000} rows={2} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </div>
      <fieldset>
        <legend>Twins</legend>
        {catalog.map((t) => {
          const ready = seeds.filter((s) => s.twin === t.slug && s.status === 'ready' && s.usable);
          return (
            <div class="twin-choice" key={t.slug}>
              <label class="inline">
                <input type="checkbox" checked={!!picked[t.slug]} onChange={(e) => setPicked({ ...picked, [t.slug]: e.currentTarget.checked })} /> {t.name}
              </label>
              {picked[t.slug] && ready.length > 0 && (
                <div class="field nested">
                  <label for={`scenario-seed-${t.slug}`}>Seed for {t.name}</label>
                  <select
                    id={`scenario-seed-${t.slug}`}
                    value={seedFor[t.slug] ?? ''}
                    onChange={(e) => setSeedFor({ ...seedFor, [t.slug]: e.currentTarget.value })}
                  >
                    <option value="">Empty</option>
                    {ready.map((s) => (
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
      <ErrorNote error={create.error} />
      <button type="submit" class="primary" disabled={create.busy}>
        Create scenario
      </button>
    </form>
  );
}
