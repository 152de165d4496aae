// One environment: its twins (URL, key on request, an SDK snippet), reset and delete, and the tabs
// for its request log, its twins' records, its clock and its snapshots.

import { useState } from 'preact/hooks';
import { api, get, type CatalogTwin, type Environment, type Twin } from '../lib/api.js';
import { href, navigate } from '../lib/router.js';
import { dateTime, relative } from '../lib/format.js';
import { genericSdk, renderSdkSnippet } from '../../../client/sdk-snippets.js';
import { Badge, CodeBlock, ConfirmButton, CopyButton, ErrorNote, Loading, PageHeader, useAction, useInterval, useLoad } from '../components/ui.js';
import { RequestsTab } from './requests.js';
import { RecordsTab } from './records.js';
import { TimeTab } from './time.js';
import { SnapshotsTab } from './snapshots.js';

const TABS = [
  ['overview', 'Overview'],
  ['requests', 'Requests'],
  ['records', 'Records'],
  ['time', 'Time'],
  ['snapshots', 'Snapshots'],
] as const;

export function EnvironmentPage({ id, tab, itemId, query }: { id: string; tab: string; itemId?: string; query: URLSearchParams }) {
  const env = useLoad(() => get<Environment>(`/environments/${encodeURIComponent(id)}`), [id]);
  useInterval(env.reload, 1000, env.data?.status === 'provisioning' || env.data?.status === 'stopping');
  const e = env.data;
  if (!e) {
    return (
      <section>
        <h1 tabIndex={-1} id="page-title">
          Environment
        </h1>
        {env.loading ? <Loading what="the environment" /> : <ErrorNote error={env.error} />}
      </section>
    );
  }
  return (
    <section aria-labelledby="page-title">
      <p class="crumbs">
        <a href={href('environments')}>Environments</a> /
      </p>
      <PageHeader title={e.name}>
        <Badge status={e.status} />
      </PageHeader>
      <p class="facts">
        <span>
          Clock {dateTime(e.clock)} ({e.clock_mode})
        </span>
        <span>Fidelity {e.fidelity}</span>
        <span title={dateTime(e.expires_at)}>Expires {e.expires_at ? relative(e.expires_at) : 'never'}</span>
        <span>Created {dateTime(e.created_at)}</span>
      </p>
      <nav class="tabs" aria-label="Environment views">
        <ul>
          {TABS.map(([key, label]) => (
            <li key={key}>
              <a href={key === 'overview' ? href('environments', e.id) : href('environments', e.id, key)} aria-current={tab === key ? 'page' : undefined}>
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {tab === 'overview' && <Overview env={e} reload={env.reload} />}
      {tab === 'requests' && <RequestsTab env={e} logId={itemId} />}
      {tab === 'records' && <RecordsTab env={e} query={query} />}
      {tab === 'time' && <TimeTab env={e} reload={env.reload} />}
      {tab === 'snapshots' && <SnapshotsTab env={e} />}
    </section>
  );
}

function Overview({ env, reload }: { env: Environment; reload: () => void }) {
  const catalog = useLoad(() => get<CatalogTwin[]>('/twins/catalog'), []);
  const reset = useAction(async () => {
    await api('POST', `/environments/${env.id}/reset`);
    reload();
  });
  const remove = useAction(async () => {
    await api('DELETE', `/environments/${env.id}`);
    navigate(href('environments'));
  });
  return (
    <>
      <div class="actions">
        <ConfirmButton label="Reset" confirmLabel="Reset every twin to its start" onConfirm={() => reset.run()} disabled={reset.busy} />
        <ConfirmButton label="Delete" confirmLabel="Delete this environment" onConfirm={() => remove.run()} disabled={remove.busy} />
      </div>
      <ErrorNote error={reset.error ?? remove.error} />
      <h2>Twins</h2>
      {env.twins.length === 0 && <p>This environment has no twins.</p>}
      <div class="cards">
        {env.twins.map((t) => (
          <TwinCard key={t.id} twin={t} entry={catalog.data?.find((c) => c.slug === t.twin_slug)} />
        ))}
      </div>
    </>
  );
}

function TwinCard({ twin, entry }: { twin: Twin; entry: CatalogTwin | undefined }) {
  const [credential, setCredential] = useState<Record<string, string> | undefined>();
  const key = credential?.api_key;
  const [shown, setShown] = useState(false);
  const reveal = useAction(async () => {
    setCredential(await api<{ api_key: string } & Record<string, string>>('POST', `/twins/${twin.id}/credential`));
    setShown(true);
  });
  // The credential's values stay out of the snippet until shown.
  const snippet = twin.url && entry ? renderSdkSnippet(entry.sdk ?? genericSdk(twin.twin_slug), twin.url, shown && credential ? credential : {}) : undefined;
  const titleId = `twin-${twin.id}`;
  return (
    <article class="card twin" aria-labelledby={titleId}>
      <h3 id={titleId}>
        {twin.twin_slug} <Badge status={twin.state} />
      </h3>
      <dl class="pairs">
        <dt>URL</dt>
        <dd>
          {twin.url ? (
            <>
              <code class="value">{twin.url}</code> <CopyButton text={twin.url} label={`Copy ${twin.twin_slug} URL`} />
            </>
          ) : (
            <span class="muted">once ready</span>
          )}
        </dd>
        <dt>Key</dt>
        <dd>
          {shown && key ? (
            <>
              <code class="value secret">{key}</code> <CopyButton text={key} label={`Copy ${twin.twin_slug} key`} />{' '}
              <button type="button" class="secondary small" onClick={() => setShown(false)}>
                Hide key
              </button>
            </>
          ) : (
            <>
              <span class="muted" aria-hidden="true">
                ••••••••••••
              </span>{' '}
              <button
                type="button"
                class="secondary small"
                disabled={twin.state !== 'ready' || reveal.busy}
                onClick={() => (key ? setShown(true) : reveal.run())}
              >
                Show {twin.twin_slug} key
              </button>
            </>
          )}
          <ErrorNote error={reveal.error} />
        </dd>
        <dt>Version</dt>
        <dd>{twin.twin_version}</dd>
        {twin.failure && (
          <>
            <dt>Failure</dt>
            <dd class="error">{twin.failure}</dd>
          </>
        )}
      </dl>
      {snippet && (
        <details>
          <summary>SDK snippet ({snippet.language})</summary>
          {snippet.install && <CodeBlock label={`Install the ${twin.twin_slug} SDK`} text={snippet.install} />}
          <CodeBlock label={`${twin.twin_slug} SDK snippet`} text={snippet.code} />
          <CopyButton text={snippet.code} label="Copy snippet" />
        </details>
      )}
    </article>
  );
}
