// An environment's snapshots: take one, fork the environment, and read what changed since a
// snapshot (the diff an agent's author reads after a run: records added, changed with their
// fields, removed, per twin).

import { useState } from 'preact/hooks';
import { api, get, type Environment, type EnvironmentDiff, type Page, type Snapshot } from '../lib/api.js';
import { href, navigate } from '../lib/router.js';
import { dateTime } from '../lib/format.js';
import { ErrorNote, Loading, TableWrap, useAction, useLoad } from '../components/ui.js';

export function SnapshotsTab({ env }: { env: Environment }) {
  const list = useLoad(() => get<Page<Snapshot>>(`/environments/${env.id}/snapshots?size=100`), [env.id]);
  const [name, setName] = useState('');
  const [diff, setDiff] = useState<{ snapshot: Snapshot; diff: EnvironmentDiff } | undefined>();
  const take = useAction(async () => {
    await api('POST', `/environments/${env.id}/snapshots`, { name: name || `snapshot ${new Date().toISOString()}` });
    setName('');
    list.reload();
  });
  const fork = useAction(async () => {
    const forked = await api<Environment>('POST', `/environments/${env.id}/fork`, {});
    navigate(href('environments', forked.id));
  });
  const compare = useAction(async (snapshot: Snapshot) => {
    setDiff({ snapshot, diff: await get<EnvironmentDiff>(`/environments/${env.id}/diff?snapshot_id=${encodeURIComponent(snapshot.id)}`) });
  });
  const ready = env.status === 'ready';
  return (
    <div class="snapshots">
      <h2>Snapshots</h2>
      <p class="muted">
        A snapshot copies every twin's records and the clock at one instant. Start a new environment from it, fork this one (a snapshot and an environment
        started from it at once), or see what changed since.
      </p>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          void take.run();
        }}
      >
        <div class="field">
          <label for="snapshot-name">Name</label>
          <input id="snapshot-name" maxLength={200} value={name} placeholder="before the agent" onInput={(e) => setName(e.currentTarget.value)} />
        </div>
        <button type="submit" class="primary" disabled={!ready || take.busy}>
          Take a snapshot
        </button>
        <button type="button" class="secondary" disabled={!ready || fork.busy} onClick={() => fork.run()}>
          Fork this environment
        </button>
      </form>
      <ErrorNote error={take.error ?? fork.error ?? compare.error} />
      {!list.data ? (
        list.loading ? (
          <Loading what="snapshots" />
        ) : (
          <ErrorNote error={list.error} />
        )
      ) : list.data.items.length === 0 ? (
        <p>No snapshots yet.</p>
      ) : (
        <TableWrap label="Snapshots">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Clock</th>
                <th scope="col">Size</th>
                <th scope="col">Taken</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((s) => (
                <tr key={s.id}>
                  <td>{s.name}</td>
                  <td>{dateTime(s.clock)}</td>
                  <td>{(s.size_bytes / 1024).toFixed(0)} KiB</td>
                  <td>{dateTime(s.created_at)}</td>
                  <td>
                    <button type="button" class="secondary small" disabled={compare.busy} onClick={() => compare.run(s)}>
                      What changed since
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {diff && <DiffView env={env} snapshot={diff.snapshot} diff={diff.diff} />}
    </div>
  );
}

function DiffView({ env, snapshot, diff }: { env: Environment; snapshot: Snapshot; diff: EnvironmentDiff }) {
  const slug = (twinId: string) => env.twins.find((t) => t.id === twinId)?.twin_slug ?? snapshot.twins.find((t) => t.twin_id === twinId)?.twin_slug ?? twinId;
  return (
    <section aria-labelledby="diff-title">
      <h3 id="diff-title">Since “{snapshot.name}”</h3>
      {diff.twins.map((t) => (
        <article key={t.twin_id} class="card">
          <h4>
            {slug(t.twin_id)}: {t.added.length} added, {t.changed.length} changed, {t.removed.length} removed
            {t.truncated ? ' (more not listed)' : ''}
          </h4>
          <ul class="diff">
            {t.added.map((r) => (
              <li key={`+${r.resource}/${r.external_id}`}>
                + {r.resource} <code>{r.external_id}</code>
              </li>
            ))}
            {t.changed.map((r) => (
              <li key={`~${r.resource}/${r.external_id}`}>
                ~ {r.resource} <code>{r.external_id}</code>: {r.fields.join(', ')}
              </li>
            ))}
            {t.removed.map((r) => (
              <li key={`-${r.resource}/${r.external_id}`}>
                − {r.resource} <code>{r.external_id}</code>
              </li>
            ))}
          </ul>
        </article>
      ))}
    </section>
  );
}
