// Seeds: starting states described in words, generated once. The suggestions each twin ships, a
// seed's progress until it is ready, and creating or deleting one.

import { useState } from 'preact/hooks';
import { api, get, type CatalogTwin, type Seed, type Suggestion } from '../lib/api.js';
import { bytes, dateTime } from '../lib/format.js';
import { Badge, ConfirmButton, ErrorNote, Loading, PageHeader, TableWrap, useAction, useInterval, useLoad } from '../components/ui.js';

export function SeedsPage() {
  const seeds = useLoad(() => get<Seed[]>('/seeds'), []);
  const catalog = useLoad(() => get<CatalogTwin[]>('/twins/catalog'), []);
  const suggestions = useLoad(() => get<Suggestion[]>('/seeds/suggestions'), []);
  const [draft, setDraft] = useState<Suggestion>({ twin: 'stripe', name: '', prompt: '' });
  const generating = !!seeds.data?.some((s) => s.status === 'pending' || s.status === 'running');
  useInterval(seeds.reload, 1000, generating);
  const create = useAction(async () => {
    await api('POST', '/seeds', draft);
    setDraft({ twin: draft.twin, name: '', prompt: '' });
    seeds.reload();
  });
  const remove = useAction(async (id: string) => {
    await api('DELETE', `/seeds/${id}`);
    seeds.reload();
  });
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Seeds" />
      <p class="muted">A seed is a starting state for one twin, described in words and generated once; environments and scenarios start twins from it.</p>
      <ErrorNote error={seeds.error} />
      {!seeds.data && seeds.loading && <Loading what="seeds" />}
      {seeds.data && seeds.data.length === 0 && <p>No seeds yet.</p>}
      {seeds.data && seeds.data.length > 0 && (
        <TableWrap label="Seeds">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Twin</th>
                <th scope="col">Status</th>
                <th scope="col">Size</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {seeds.data.map((s) => (
                <tr key={s.id}>
                  <th scope="row">
                    {s.name}
                    <div class="muted small">{s.prompt}</div>
                  </th>
                  <td>{s.twin}</td>
                  <td>
                    <Badge status={s.status} />
                    {(s.status === 'pending' || s.status === 'running') && <progress aria-label={`${s.name}: ${s.status}`} />}
                    {s.status === 'ready' && !s.usable && <div class="warn-text">Generated for an older twin release: generate it again.</div>}
                    {s.failure && <div class="error">{s.failure}</div>}
                  </td>
                  <td>{s.status === 'ready' ? bytes(s.size_bytes) : '—'}</td>
                  <td>{dateTime(s.created_at)}</td>
                  <td>
                    <ConfirmButton label="Delete" confirmLabel={`Delete seed ${s.name}`} onConfirm={() => remove.run(s.id)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <ErrorNote error={remove.error} />

      <form
        class="card"
        aria-labelledby="new-seed-title"
        onSubmit={(e) => {
          e.preventDefault();
          void create.run();
        }}
      >
        <h2 id="new-seed-title">New seed</h2>
        <div class="field">
          <label for="seed-twin">Twin</label>
          <select id="seed-twin" value={draft.twin} onChange={(e) => setDraft({ ...draft, twin: e.currentTarget.value })}>
            {(catalog.data ?? []).map((t) => (
              <option key={t.slug} value={t.slug}>
                {t.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="seed-name">Name</label>
          <input id="seed-name" required maxLength={200} value={draft.name} onInput={(e) => setDraft({ ...draft, name: e.currentTarget.value })} />
        </div>
        <div class="field">
          <label for="seed-prompt">Describe the starting state</label>
          <textarea
            id="seed-prompt"
            required
            maxLength={4000}
            rows={4}
            value={draft.prompt}
            onInput={(e) => setDraft({ ...draft, prompt: e.currentTarget.value })}
          />
        </div>
        <ErrorNote error={create.error} />
        <button type="submit" class="primary" disabled={create.busy}>
          Generate seed
        </button>
      </form>

      <h2>Suggestions</h2>
      <ErrorNote error={suggestions.error} />
      {suggestions.data && (
        <ul class="suggestions">
          {suggestions.data.map((s, i) => (
            <li key={i} class="card">
              <h3>
                {s.name} <span class="muted">· {s.twin}</span>
              </h3>
              <p>{s.prompt}</p>
              <button
                type="button"
                class="secondary small"
                onClick={() => {
                  setDraft({ twin: s.twin, name: s.name, prompt: s.prompt });
                  document.getElementById('seed-name')?.focus();
                }}
              >
                Use “{s.name}”
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
