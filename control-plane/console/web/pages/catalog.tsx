// The catalog: the twins this control plane can run, the kinds of records each keeps, and — where
// the control plane serves it (`GET /twins/catalog/{slug}/coverage`) — the fidelity level each
// provider operation is answered at (the `Twin-Fidelity` header of its answers), with counts.

import { useState } from 'preact/hooks';
import { ApiError, enc, get, type CatalogTwin } from '../lib/api.js';
import { ErrorNote, Loading, PageHeader, TableWrap, useLoad } from '../components/ui.js';

/** Fidelity levels, most faithful first (twin-runtime/fidelity.ts). */
const LEVELS = ['modelled', 'inferred', 'stored', 'unsupported'] as const;
type Level = (typeof LEVELS)[number];

interface CoverageRow {
  method: string;
  path: string;
  operation_id: string;
  level: Level;
  /** Why an operation is unsupported, or what the generic engine infers for it. */
  reason?: string;
}

async function coverage(slug: string): Promise<CoverageRow[] | 'unavailable'> {
  try {
    return await get<CoverageRow[]>(`/twins/catalog/${enc(slug)}/coverage`);
  } catch (e) {
    if (e instanceof ApiError && (e.status === 404 || e.status === 405)) return 'unavailable';
    throw e;
  }
}

export function CatalogPage() {
  const catalog = useLoad(() => get<CatalogTwin[]>('/twins/catalog'), []);
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Catalog" />
      <ErrorNote error={catalog.error} />
      {!catalog.data && catalog.loading && <Loading what="the catalog" />}
      {catalog.data?.map((t) => (
        <CatalogTwinCard key={t.slug} twin={t} />
      ))}
    </section>
  );
}

function CatalogTwinCard({ twin }: { twin: CatalogTwin }) {
  const resources = useLoad(() => get<string[]>(`/twins/catalog/${enc(twin.slug)}/resources`), [twin.slug]);
  const [open, setOpen] = useState(false);
  const id = `catalog-${twin.slug}`;
  return (
    <article class="card" aria-labelledby={id}>
      <h2 id={id}>
        {twin.name}{' '}
        <span class="muted small">
          {twin.slug} · {twin.version}
        </span>
      </h2>
      <p>{twin.description}</p>
      <p class="muted">Records: {resources.data ? resources.data.join(', ') : '…'}</p>
      <details onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
        <summary>Coverage of the provider's API</summary>
        {open && <Coverage slug={twin.slug} />}
      </details>
    </article>
  );
}

function Coverage({ slug }: { slug: string }) {
  const rows = useLoad(() => coverage(slug), [slug]);
  const [filter, setFilter] = useState<'' | Level>('');
  if (rows.loading && !rows.data) return <Loading what="coverage" />;
  if (rows.error) return <ErrorNote error={rows.error} />;
  if (rows.data === 'unavailable' || !rows.data) return <p class="muted">This control plane does not report coverage per operation.</p>;
  const counts = Object.fromEntries(LEVELS.map((l) => [l, 0])) as Record<Level, number>;
  for (const r of rows.data) counts[r.level] = (counts[r.level] ?? 0) + 1;
  const shown = filter ? rows.data.filter((r) => r.level === filter) : rows.data;
  return (
    <>
      <p>
        {LEVELS.map((l) => `${counts[l]} ${l}`).join(' · ')}, of {rows.data.length} operations
      </p>
      <p class="muted small">
        modelled: hand-written behaviour · inferred: records kept with what the spec makes safe (parents and references exist, status verbs) · stored: plain
        record keeping · unsupported: refused in the provider's own error envelope
      </p>
      <div class="field">
        <label for={`coverage-${slug}`}>Show</label>
        <select id={`coverage-${slug}`} value={filter} onChange={(e) => setFilter(e.currentTarget.value as typeof filter)}>
          <option value="">every operation</option>
          {LEVELS.map((l) => (
            <option key={l} value={l}>
              {l}
            </option>
          ))}
        </select>
      </div>
      {/* Hundreds of operations: the table scrolls in its own region instead of lengthening the page. */}
      <TableWrap label={`${slug} coverage`} tall>
        <table>
          <thead>
            <tr>
              <th scope="col">Operation</th>
              <th scope="col">Method and path</th>
              <th scope="col">Level</th>
            </tr>
          </thead>
          <tbody>
            {shown.slice(0, 2000).map((r) => (
              <tr key={`${r.method} ${r.path}`}>
                <th scope="row">
                  <code>{r.operation_id}</code>
                </th>
                <td>
                  <code>
                    {r.method.toUpperCase()} {r.path}
                  </code>
                </td>
                <td>
                  {r.level}
                  {r.reason && <div class="muted small">{r.reason}</div>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </>
  );
}
