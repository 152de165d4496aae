// The request log, live: entries arrive over the server-sent event stream without a reload,
// filtered by twin, method, path, status and fidelity level; one entry opens to its headers and bodies.

import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { get, type Environment, type LogEntry, type LogEntryDetail } from '../lib/api.js';
import { href } from '../lib/router.js';
import { dateTime, prettyBody, statusClass, statusMatches, time } from '../lib/format.js';
import { followStream, type StreamState } from '../lib/sse.js';
import { CodeBlock, ErrorNote, Loading, TableWrap, useLoad } from '../components/ui.js';

/** Entries kept on the page; older ones stay readable through the API. */
const KEEP = 2000;
const BACKLOG = 200;

interface Filters {
  twin: string;
  method: string;
  path: string;
  status: string;
  fidelity: string;
}

/** The Twin-Fidelity levels (twin-runtime/fidelity.ts), in the order the filter offers them. */
const FIDELITY_LEVELS = ['modelled', 'inferred', 'stored', 'unsupported'] as const;

function matches(e: LogEntry, f: Filters): boolean {
  if (f.twin && e.environment_twin_id !== f.twin) return false;
  if (f.method && e.method.toUpperCase() !== f.method) return false;
  if (f.fidelity && (e.fidelity ?? '') !== f.fidelity) return false;
  if (f.path && !`${e.path}${e.query_string ? '?' + e.query_string : ''}`.toLowerCase().includes(f.path.toLowerCase())) return false;
  return statusMatches(e.status_code, f.status);
}

const STATE_TEXT: Record<StreamState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  closed: 'Stopped',
};

export function RequestsTab({ env, logId }: { env: Environment; logId?: string }) {
  const [entries, setEntries] = useState<LogEntry[]>([]);
  const [state, setState] = useState<{ state: StreamState; detail?: string }>({ state: 'connecting' });
  const [filters, setFilters] = useState<Filters>({ twin: '', method: '', path: '', status: '', fidelity: '' });
  const seen = useRef(new Set<string>());

  useEffect(() => {
    seen.current = new Set();
    setEntries([]);
    const stop = followStream(`/environments/${env.id}/logs/stream?tail=${BACKLOG}`, {
      onEvent(e) {
        if (e.event !== 'request') return;
        const entry = JSON.parse(e.data) as LogEntry;
        if (seen.current.has(entry.id)) return;
        seen.current.add(entry.id);
        setEntries((list) => [entry, ...list].slice(0, KEEP));
      },
      onState(s, detail) {
        setState({ state: s, detail });
      },
    });
    return stop;
  }, [env.id]);

  const twinSlug = useMemo(() => new Map(env.twins.map((t) => [t.id, t.twin_slug])), [env.twins]);
  const methods = useMemo(() => [...new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', ...entries.map((e) => e.method.toUpperCase())])], [entries]);
  const shown = entries.filter((e) => matches(e, filters));
  const set = (k: keyof Filters) => (ev: Event) => setFilters({ ...filters, [k]: (ev.currentTarget as HTMLInputElement).value });

  return (
    <div class={`log-layout ${logId ? 'with-detail' : ''}`}>
      <section class="log-list" aria-labelledby="requests-title">
        <div class="log-head">
          <h2 id="requests-title">Requests</h2>
          <p class={`stream-state ${state.state}`} role="status">
            <span class="dot" aria-hidden="true" /> {STATE_TEXT[state.state]}
            {state.detail && state.state !== 'live' ? `: ${state.detail}` : ''} · {shown.length} of {entries.length} shown
          </p>
        </div>
        {/* biome-ignore lint/a11y/useSemanticElements: role=search on the form is the long-supported equivalent of the newer <search> element */}
        <form class="filters" role="search" aria-label="Filter requests" onSubmit={(e) => e.preventDefault()}>
          <div class="field">
            <label for="f-twin">Twin</label>
            <select id="f-twin" value={filters.twin} onChange={set('twin')}>
              <option value="">All twins</option>
              {env.twins.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.twin_slug}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="f-method">Method</label>
            <select id="f-method" value={filters.method} onChange={set('method')}>
              <option value="">All methods</option>
              {methods.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          </div>
          <div class="field grow">
            <label for="f-path">Path contains</label>
            <input id="f-path" type="search" value={filters.path} onInput={set('path')} placeholder="/v1/customers" />
          </div>
          <div class="field">
            <label for="f-status">Status</label>
            <input id="f-status" value={filters.status} onInput={set('status')} placeholder="4xx" size={5} />
          </div>
          <div class="field">
            <label for="f-fidelity">Fidelity</label>
            <select id="f-fidelity" value={filters.fidelity} onChange={set('fidelity')}>
              <option value="">All levels</option>
              {FIDELITY_LEVELS.map((l) => (
                <option key={l} value={l}>
                  {l}
                </option>
              ))}
            </select>
          </div>
        </form>
        {entries.length === 0 ? (
          <p class="muted">No requests yet. Point an SDK at a twin's URL (see Overview); its requests appear here as they happen.</p>
        ) : (
          <TableWrap label="Logged requests, newest first">
            <table class="log">
              <thead>
                <tr>
                  <th scope="col">Time (UTC)</th>
                  <th scope="col">Twin</th>
                  <th scope="col">Method</th>
                  <th scope="col">Path</th>
                  <th scope="col">Status</th>
                  <th scope="col">Fidelity</th>
                  <th scope="col">ms</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((e) => (
                  <tr key={e.id} class={e.id === logId ? 'selected' : undefined} aria-current={e.id === logId ? 'true' : undefined}>
                    <td>
                      <time dateTime={e.occurred_at}>{time(e.occurred_at)}</time>
                    </td>
                    <td>{twinSlug.get(e.environment_twin_id) ?? '?'}</td>
                    <td class="method">{e.method}</td>
                    <td class="path">
                      <a href={href('environments', env.id, 'requests', e.id)}>
                        {e.path}
                        {e.query_string ? `?${e.query_string}` : ''}
                      </a>
                    </td>
                    <td>
                      <span class={`status ${statusClass(e.status_code)}`}>{e.status_code ?? 'unanswered'}</span>
                    </td>
                    <td class={`fidelity ${e.fidelity ?? 'none'}`}>{e.fidelity ?? '—'}</td>
                    <td class="num">{e.duration_ms}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </section>
      {logId && <RequestDetail env={env} logId={logId} />}
    </div>
  );
}

function Body({ title, body, contentType, truncated }: { title: string; body: string | null; contentType: string | null; truncated: boolean }) {
  const p = prettyBody(body, contentType);
  return (
    <div class="body-block">
      <h4>
        {title} <span class="muted">{contentType ?? ''}</span>
      </h4>
      {p.kind === 'empty' && <p class="muted">No body.</p>}
      {p.kind === 'form' && p.pairs && (
        <TableWrap label={`${title}, decoded`}>
          <table class="pairs-table">
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {p.pairs.map(([k, v], i) => (
                <tr key={i}>
                  <th scope="row">
                    <code>{k}</code>
                  </th>
                  <td>
                    <code>{v}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {(p.kind === 'json' || p.kind === 'text') && <CodeBlock label={title} text={p.text} class={p.kind} />}
      {truncated && <p class="muted">Cut at 64 KiB.</p>}
    </div>
  );
}

function RequestDetail({ env, logId }: { env: Environment; logId: string }) {
  const entry = useLoad(() => get<LogEntryDetail>(`/environments/${env.id}/logs/${encodeURIComponent(logId)}`), [env.id, logId]);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (entry.data) heading.current?.focus({ preventScroll: false });
  }, [entry.data?.id]);
  const d = entry.data;
  return (
    <section class="log-detail card" aria-labelledby="request-title">
      <p>
        <a href={href('environments', env.id, 'requests')}>Close request</a>
      </p>
      {!d && entry.loading && <Loading what="the request" />}
      <ErrorNote error={entry.error} />
      {d && (
        <>
          <h3 id="request-title" tabIndex={-1} ref={heading}>
            <span class="method">{d.method}</span> {d.path}
            {d.query_string ? `?${d.query_string}` : ''}
          </h3>
          <p class="facts">
            <span class={`status ${statusClass(d.status_code)}`}>{d.status_code ?? 'unanswered'}</span>
            <span>{d.twin_slug}</span>
            <span>{d.duration_ms} ms</span>
            <span title="How the twin made this answer (Twin-Fidelity)">{d.fidelity ?? 'fidelity not given'}</span>
            <span>{dateTime(d.occurred_at)}</span>
            <span>{d.actor}</span>
          </p>
          <h4>Request headers</h4>
          <TableWrap label="Request headers">
            <table class="pairs-table">
              <thead>
                <tr>
                  <th scope="col">Header</th>
                  <th scope="col">Value</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(d.request.headers).map(([k, v]) => (
                  <tr key={k}>
                    <th scope="row">
                      <code>{k}</code>
                    </th>
                    <td>
                      <code>{Array.isArray(v) ? v.join(', ') : v}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          <p class="muted">Credentials (Authorization, cookies, signatures) are never logged.</p>
          <Body title="Request body" body={d.request.body} contentType={d.request.content_type} truncated={d.request.body_truncated} />
          <Body
            title={`Response body (${d.status_code ?? 'unanswered'})`}
            body={d.response.body}
            contentType={d.response.content_type}
            truncated={d.response.body_truncated}
          />
        </>
      )}
    </section>
  );
}
