// A twin's records by resource: browse, view and edit one as JSON (syntax and the API's 422
// entries shown at the field), delete.

import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, enc, get, type Environment, type TwinRecord } from '../lib/api.js';
import { href, navigate, withQuery } from '../lib/router.js';
import { jsonErrorPlace } from '../lib/format.js';
import { ConfirmButton, ErrorNote, Loading, TableWrap, useAction, useLoad } from '../components/ui.js';

const PREVIEW_FIELDS = ['name', 'email', 'login', 'full_name', 'title', 'description', 'text', 'status', 'amount', 'currency'];

function preview(body: Record<string, unknown>): string {
  const keys = PREVIEW_FIELDS.filter((k) => body[k] !== undefined && body[k] !== null && typeof body[k] !== 'object');
  const picked =
    keys.length > 0
      ? keys
      : Object.keys(body)
          .filter((k) => k !== 'id' && k !== 'object' && typeof body[k] !== 'object')
          .slice(0, 3);
  return picked
    .slice(0, 4)
    .map((k) => `${k}: ${String(body[k])}`)
    .join(' · ');
}

export function RecordsTab({ env, query }: { env: Environment; query: URLSearchParams }) {
  const twinId = query.get('twin') ?? env.twins[0]?.id ?? '';
  const twin = env.twins.find((t) => t.id === twinId);
  const resources = useLoad(() => (twin ? get<string[]>(`/twins/catalog/${enc(twin.twin_slug)}/resources`) : Promise.resolve([])), [twin?.twin_slug]);
  const resource = query.get('resource') ?? resources.data?.[0] ?? '';
  const recordId = query.get('record') ?? undefined;
  const base = href('environments', env.id, 'records');
  const go = (q: Record<string, string | undefined>, replace = true) => navigate(withQuery(base, { twin: twinId, resource, ...q }), replace);
  const records = useLoad(
    () => (twin && resource ? get<TwinRecord[]>(`/environments/${env.id}/twins/${twin.id}/records/${enc(resource)}`) : Promise.resolve([])),
    [twin?.id, resource],
  );

  if (env.twins.length === 0) return <p>This environment has no twins.</p>;
  return (
    <div class="records">
      <h2>Records</h2>
      <form class="filters" aria-label="Choose records" onSubmit={(e) => e.preventDefault()}>
        <div class="field">
          <label for="r-twin">Twin</label>
          <select id="r-twin" value={twinId} onChange={(e) => navigate(withQuery(base, { twin: e.currentTarget.value }), true)}>
            {env.twins.map((t) => (
              <option key={t.id} value={t.id}>
                {t.twin_slug}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="r-resource">Resource</label>
          <select id="r-resource" value={resource} onChange={(e) => go({ resource: e.currentTarget.value, record: undefined })}>
            {(resources.data ?? []).map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        <button type="button" class="secondary" onClick={records.reload}>
          Refresh
        </button>
      </form>
      <ErrorNote error={resources.error ?? records.error} />
      <div class={`records-layout ${recordId ? 'with-detail' : ''}`}>
        <div>
          {!records.data && records.loading && <Loading what="records" />}
          {records.data && records.data.length === 0 && <p class="muted">No {resource} records in this twin.</p>}
          {records.data && records.data.length > 0 && (
            <TableWrap label={`${resource} records`}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Id</th>
                    <th scope="col">Summary</th>
                  </tr>
                </thead>
                <tbody>
                  {records.data.map((r) => (
                    <tr key={r.external_id} class={r.external_id === recordId ? 'selected' : undefined}>
                      <th scope="row">
                        <a
                          href={withQuery(base, { twin: twinId, resource, record: r.external_id })}
                          aria-current={r.external_id === recordId ? 'true' : undefined}
                        >
                          {r.external_id}
                        </a>
                      </th>
                      <td>{preview(r.body)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
        </div>
        {recordId && records.data && twin && (
          <RecordEditor
            key={`${twin.id}/${resource}/${recordId}`}
            path={`/environments/${env.id}/twins/${twin.id}/records/${enc(resource)}/${enc(recordId)}`}
            record={records.data.find((r) => r.external_id === recordId)}
            resource={resource}
            externalId={recordId}
            onSaved={records.reload}
            onDeleted={() => {
              records.reload();
              go({ record: undefined }, false);
            }}
          />
        )}
      </div>
    </div>
  );
}

function RecordEditor({
  path,
  record,
  resource,
  externalId,
  onSaved,
  onDeleted,
}: {
  path: string;
  record: TwinRecord | undefined;
  resource: string;
  externalId: string;
  onSaved: () => void;
  onDeleted: () => void;
}) {
  const [text, setText] = useState(() => (record ? JSON.stringify(record.body, null, 2) : '{\n}'));
  const [syntax, setSyntax] = useState<string | undefined>();
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (record) setText(JSON.stringify(record.body, null, 2));
  }, [record && JSON.stringify(record.body)]);

  const check = (source: string): Record<string, unknown> | undefined => {
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch (e) {
      const msg = (e as Error).message;
      const place = jsonErrorPlace(source, msg);
      setSyntax(`Not valid JSON${place ? ` at ${place}` : ''}: ${msg}`);
      return undefined;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      setSyntax('A record is a JSON object: its fields as the provider returns them.');
      return undefined;
    }
    setSyntax(undefined);
    return value as Record<string, unknown>;
  };

  const save = useAction(async () => {
    setSaved(false);
    const fields = check(text);
    if (!fields) return;
    await api('PUT', path, { fields });
    setSaved(true);
    onSaved();
  });
  const remove = useAction(async () => {
    await api('DELETE', path);
    onDeleted();
  });
  const entries = save.error instanceof ApiError ? save.error.entries : [];
  const errorId = 'record-json-error';
  const invalid = !!syntax || entries.length > 0;
  return (
    <section class="card record-editor" aria-labelledby="record-title">
      <h3 id="record-title">
        {resource} <code>{externalId}</code>
      </h3>
      {!record && <p class="muted">This record is not in the list any more; saving creates it again.</p>}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save.run();
        }}
      >
        <div class="field">
          <label for="record-json">Fields (JSON)</label>
          <textarea
            id="record-json"
            class="json"
            spellcheck={false}
            rows={Math.min(30, Math.max(8, text.split('\n').length + 1))}
            value={text}
            aria-invalid={invalid ? 'true' : undefined}
            aria-describedby={invalid ? errorId : undefined}
            onInput={(e) => {
              setText(e.currentTarget.value);
              setSaved(false);
              if (syntax) check(e.currentTarget.value);
            }}
          />
          {syntax && (
            <p class="error" role="alert" id={errorId}>
              {syntax}
            </p>
          )}
          {entries.length > 0 && (
            <div role="alert" id={errorId}>
              <ul class="error">
                {entries.map((x, i) => (
                  <li key={i}>
                    <code>{x.loc.filter((p) => p !== 'body').join('.')}</code>: {x.msg}
                  </li>
                ))}
              </ul>
            </div>
          )}
          {save.error && entries.length === 0 && <ErrorNote error={save.error} />}
        </div>
        <div class="actions">
          <button type="submit" class="primary" disabled={save.busy}>
            Save record
          </button>
          <ConfirmButton label="Delete record" confirmLabel={`Delete ${externalId}`} onConfirm={() => remove.run()} />
          <span role="status" class="ok-text">
            {saved ? 'Saved: the twin answers with it now.' : ''}
          </span>
        </div>
        <ErrorNote error={remove.error} />
      </form>
    </section>
  );
}
