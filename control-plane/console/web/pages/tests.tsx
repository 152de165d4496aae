// Tests: outcomes in words or explicit assertions, their attempts over an environment's traffic,
// and for a failed assertion the near misses — the requests that came closest, field by field.

import { useState } from 'preact/hooks';
import { ApiError, all, api, get, type Attempt, type AssertionResult, type CatalogTwin, type Environment, type NearMiss, type Test } from '../lib/api.js';
import { href, navigate } from '../lib/router.js';
import { dateTime, statusClass } from '../lib/format.js';
import { Badge, CodeBlock, ConfirmButton, ErrorNote, Loading, PageHeader, TableWrap, useAction, useLoad } from '../components/ui.js';

const EXAMPLE = JSON.stringify(
  [
    {
      says: 'created exactly one customer',
      count: { exactly: 1 },
      match: { twin: 'stripe', method: 'POST', path: '/v1/customers', response: { status: '2xx' } },
    },
  ],
  null,
  2,
);

export function TestsPage() {
  const tests = useLoad(() => all<Test>('/tests', 500), []);
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Tests" />
      <p class="muted">
        A test states what an agent should (or should not) have done against its twins; an attempt judges an environment's logged traffic against it. See{' '}
        <a href="/docs">the API reference</a> for the matcher language.
      </p>
      <ErrorNote error={tests.error} />
      {!tests.data && tests.loading && <Loading what="tests" />}
      {tests.data && tests.data.length === 0 && <p>No tests yet.</p>}
      {tests.data && tests.data.length > 0 && (
        <TableWrap label="Tests">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Twins</th>
                <th scope="col">Status</th>
                <th scope="col">Assertions</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {tests.data.map((t) => (
                <tr key={t.id}>
                  <th scope="row">
                    <a href={href('tests', t.id)}>{t.name}</a>
                  </th>
                  <td>{t.twins.join(', ')}</td>
                  <td>
                    <Badge status={t.status} />
                  </td>
                  <td class="num">{t.assertions.length}</td>
                  <td>{dateTime(t.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <CreateTest />
    </section>
  );
}

function CreateTest() {
  const catalog = useLoad(() => get<CatalogTwin[]>('/twins/catalog'), []);
  const [name, setName] = useState('');
  const [twins, setTwins] = useState<Record<string, boolean>>({ stripe: true });
  const [mode, setMode] = useState<'assertions' | 'outcome'>('assertions');
  const [outcome, setOutcome] = useState('');
  const [assertions, setAssertions] = useState(EXAMPLE);
  const [syntax, setSyntax] = useState<string | undefined>();
  const create = useAction(async () => {
    const body: Record<string, unknown> = { name, twins: Object.keys(twins).filter((t) => twins[t]) };
    if (mode === 'outcome') body.outcome = outcome;
    else {
      try {
        body.assertions = JSON.parse(assertions);
        setSyntax(undefined);
      } catch (e) {
        setSyntax(`Not valid JSON: ${(e as Error).message}`);
        return;
      }
    }
    const test = await api<Test>('POST', '/tests', body);
    navigate(href('tests', test.id));
  });
  const entries = create.error instanceof ApiError ? create.error.entries : [];
  const assertionErrors = entries.filter((e) => e.loc[1] === 'assertions');
  const otherError = create.error && assertionErrors.length === 0 ? create.error : undefined;
  return (
    <form
      class="card"
      aria-labelledby="new-test-title"
      onSubmit={(e) => {
        e.preventDefault();
        void create.run();
      }}
    >
      <h2 id="new-test-title">New test</h2>
      <div class="field">
        <label for="test-name">Name</label>
        <input id="test-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </div>
      <fieldset>
        <legend>Twins</legend>
        {(catalog.data ?? []).map((t) => (
          <label class="inline" key={t.slug}>
            <input type="checkbox" checked={!!twins[t.slug]} onChange={(e) => setTwins({ ...twins, [t.slug]: e.currentTarget.checked })} /> {t.name}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Written as</legend>
        <label class="inline">
          <input type="radio" name="test-mode" checked={mode === 'assertions'} onChange={() => setMode('assertions')} /> Assertions (JSON)
        </label>
        <label class="inline">
          <input type="radio" name="test-mode" checked={mode === 'outcome'} onChange={() => setMode('outcome')} /> An outcome in words
        </label>
      </fieldset>
      {mode === 'outcome' ? (
        <div class="field">
          <label for="test-outcome">Outcome</label>
          <textarea
            id="test-outcome"
            required
            rows={3}
            maxLength={4000}
            value={outcome}
            onInput={(e) => setOutcome(e.currentTarget.value)}
            placeholder="exactly one refund of $10, and never deleted a customer"
          />
        </div>
      ) : (
        <div class="field">
          <label for="test-assertions">Assertions</label>
          <textarea
            id="test-assertions"
            class="json"
            spellcheck={false}
            rows={10}
            value={assertions}
            aria-invalid={syntax || assertionErrors.length > 0 ? 'true' : undefined}
            aria-describedby={syntax || assertionErrors.length > 0 ? 'test-assertions-error' : undefined}
            onInput={(e) => setAssertions(e.currentTarget.value)}
          />
          {(syntax || assertionErrors.length > 0) && (
            <div role="alert" id="test-assertions-error">
              <ul class="error">
                {syntax && <li>{syntax}</li>}
                {assertionErrors.map((x, i) => (
                  <li key={i}>
                    <code>{x.loc.slice(1).join('.')}</code>: {x.msg}
                  </li>
                ))}
              </ul>
            </div>
          )}
        </div>
      )}
      <ErrorNote error={otherError} />
      <button type="submit" class="primary" disabled={create.busy}>
        Create test
      </button>
    </form>
  );
}

export function TestPage({ id }: { id: string }) {
  const test = useLoad(() => get<Test>(`/tests/${encodeURIComponent(id)}`), [id]);
  const attempts = useLoad(() => all<Attempt>(`/tests/${encodeURIComponent(id)}/attempts`, 200), [id]);
  const envs = useLoad(() => all<Environment>('/environments', 200), []);
  const [envId, setEnvId] = useState('');
  const run = useAction(async () => {
    const chosen = envId || envs.data?.[0]?.id;
    if (!chosen) throw new Error('Choose an environment whose traffic the attempt judges.');
    const attempt = await api<Attempt>('POST', `/tests/${id}/attempts`, { environment_id: chosen });
    navigate(href('tests', id, 'attempts', attempt.id));
  });
  const remove = useAction(async () => {
    await api('DELETE', `/tests/${id}`);
    navigate(href('tests'));
  });
  const t = test.data;
  if (!t) {
    return (
      <section>
        <h1 tabIndex={-1} id="page-title">
          Test
        </h1>
        {test.loading ? <Loading what="the test" /> : <ErrorNote error={test.error} />}
      </section>
    );
  }
  return (
    <section aria-labelledby="page-title">
      <p class="crumbs">
        <a href={href('tests')}>Tests</a> /
      </p>
      <PageHeader title={t.name}>
        <Badge status={t.status} />
        <ConfirmButton label="Delete test" confirmLabel={`Delete test ${t.name}`} onConfirm={() => remove.run()} />
      </PageHeader>
      <ErrorNote error={remove.error} />
      {t.outcome && (
        <p>
          Outcome: <q>{t.outcome}</q>
        </p>
      )}
      {t.failure && <p class="error">{t.failure}</p>}
      <h2>Assertions</h2>
      <ol class="assertions">
        {t.assertions.map((a, i) => (
          <li key={i}>
            <span>{String(a.says ?? `assertion ${i + 1}`)}</span>
            <details>
              <summary>Matcher</summary>
              <CodeBlock label={`Assertion ${i + 1}`} text={JSON.stringify(a, null, 2)} />
            </details>
          </li>
        ))}
      </ol>
      <h2>Run an attempt</h2>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          void run.run();
        }}
      >
        <div class="field">
          <label for="attempt-env">Environment</label>
          <select id="attempt-env" value={envId} onChange={(e) => setEnvId(e.currentTarget.value)}>
            {(envs.data ?? []).map((e) => (
              <option key={e.id} value={e.id}>
                {e.name} ({e.status})
              </option>
            ))}
          </select>
        </div>
        <button type="submit" class="primary" disabled={run.busy || t.status !== 'ready'}>
          Run attempt
        </button>
      </form>
      <ErrorNote error={run.error} />
      <h2>Attempts</h2>
      <ErrorNote error={attempts.error} />
      {attempts.data && attempts.data.length === 0 && <p class="muted">No attempts yet.</p>}
      {attempts.data && attempts.data.length > 0 && (
        <TableWrap label="Attempts">
          <table>
            <thead>
              <tr>
                <th scope="col">Result</th>
                <th scope="col">Evaluated</th>
                <th scope="col">Window</th>
                <th scope="col">Assertions passed</th>
              </tr>
            </thead>
            <tbody>
              {attempts.data.map((a) => (
                <tr key={a.id}>
                  <th scope="row">
                    <a href={href('tests', id, 'attempts', a.id)}>
                      <Badge status={a.passed ? 'passed' : 'failed'} />
                      <span class="visually-hidden"> attempt of {dateTime(a.evaluated_at)}</span>
                    </a>
                  </th>
                  <td>{dateTime(a.evaluated_at)}</td>
                  <td>
                    {dateTime(a.from)} → {dateTime(a.to)}
                  </td>
                  <td class="num">
                    {a.results.filter((r) => r.passed).length} of {a.results.length}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}

export function AttemptPage({ testId, attemptId }: { testId: string; attemptId: string }) {
  const test = useLoad(() => get<Test>(`/tests/${encodeURIComponent(testId)}`), [testId]);
  const attempt = useLoad(() => get<Attempt>(`/tests/${encodeURIComponent(testId)}/attempts/${encodeURIComponent(attemptId)}`), [testId, attemptId]);
  const a = attempt.data;
  return (
    <section aria-labelledby="page-title">
      <p class="crumbs">
        <a href={href('tests')}>Tests</a> / {test.data ? <a href={href('tests', testId)}>{test.data.name}</a> : '…'} /
      </p>
      <PageHeader title={a ? `Attempt ${a.passed ? 'passed' : 'failed'}` : 'Attempt'}>{a && <Badge status={a.passed ? 'passed' : 'failed'} />}</PageHeader>
      {!a && attempt.loading && <Loading what="the attempt" />}
      <ErrorNote error={attempt.error} />
      {a && (
        <>
          <p class="facts">
            <span>
              Traffic of <a href={href('environments', a.environment_id, 'requests')}>its environment</a> from {dateTime(a.from)} to {dateTime(a.to)}
            </span>
            <span>Evaluated {dateTime(a.evaluated_at)}</span>
          </p>
          {a.results.map((r) => (
            <Result key={r.index} result={r} environmentId={a.environment_id} />
          ))}
        </>
      )}
    </section>
  );
}

function Result({ result: r, environmentId }: { result: AssertionResult; environmentId: string }) {
  const id = `result-${r.index}`;
  return (
    <article class={`card result ${r.passed ? 'passed' : 'failed'}`} aria-labelledby={id}>
      <h2 id={id}>
        <Badge status={r.passed ? 'passed' : 'failed'} /> {r.says}
      </h2>
      <p class="facts">
        <span>Expected {r.expected}</span>
        <span>Observed {r.observed}</span>
      </p>
      {r.reason && <p>{r.reason}</p>}
      {r.offending && r.offending.length > 0 && (
        <>
          <h3>Requests it forbids</h3>
          <ul>
            {r.offending.map((o) => (
              <li key={o.log_id}>
                <a href={href('environments', environmentId, 'requests', o.log_id)}>
                  {o.method} {o.path}
                </a>{' '}
                <span class={`status ${statusClass(o.status)}`}>{o.status}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      {r.steps && r.steps.length > 0 && (
        <>
          <h3>Steps</h3>
          <ol>
            {r.steps.map((s) => (
              <li key={s.step}>
                {s.says ?? `step ${s.step + 1}`}:{' '}
                {s.bound_log_id ? <a href={href('environments', environmentId, 'requests', s.bound_log_id)}>bound</a> : <strong>nothing matched</strong>}
              </li>
            ))}
          </ol>
        </>
      )}
      {r.near_misses && r.near_misses.length > 0 && (
        <>
          <h3>Near misses</h3>
          {r.near_misses.map((m, i) => (
            <NearMissTable key={m.log_id} miss={m} rank={i + 1} environmentId={environmentId} />
          ))}
        </>
      )}
    </article>
  );
}

function show(v: unknown): string {
  if (v === undefined) return '(absent)';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function NearMissTable({ miss, rank, environmentId }: { miss: NearMiss; rank: number; environmentId: string }) {
  return (
    <div class="near-miss">
      <p>
        {rank}.{' '}
        <a href={href('environments', environmentId, 'requests', miss.log_id)}>
          {miss.method} {miss.path}
        </a>{' '}
        <span class={`status ${statusClass(miss.status)}`}>{miss.status}</span> · {miss.twin} · {dateTime(miss.occurred_at)} ·{' '}
        <strong>
          {miss.matched_fields} of {miss.total_fields} checks held
        </strong>
      </p>
      <TableWrap label={`Near miss ${rank}: checks`}>
        <table class="near-miss-table">
          <caption class="visually-hidden">Checks of near miss {rank}: what the assertion expected and what the request had</caption>
          <thead>
            <tr>
              <th scope="col">Check</th>
              <th scope="col">Expected</th>
              <th scope="col">Actual</th>
              <th scope="col">Held</th>
            </tr>
          </thead>
          <tbody>
            {miss.fields.map((f, i) => (
              <tr key={i} class={f.ok ? 'held' : 'missed'}>
                <th scope="row">
                  <code>{f.field}</code>
                </th>
                <td>
                  <code>{f.expected}</code>
                </td>
                <td>
                  <code>{show(f.actual)}</code>
                </td>
                <td>{f.ok ? '✓ yes' : '✗ no'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </div>
  );
}
