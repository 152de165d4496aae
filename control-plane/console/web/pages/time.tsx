// The environment clock and moving it forward: to a date, or by a day or a month. A long advance
// may answer 202 with an Advance to follow (its Location) until it ends.

import { useState } from 'preact/hooks';
import { get, request, type Advance, type Environment } from '../lib/api.js';
import { addDays, addMonth, dateTime } from '../lib/format.js';
import { ErrorNote, useAction } from '../components/ui.js';

/** `datetime-local` value in UTC (the console shows every time in UTC). */
function localInput(d: Date): string {
  return d.toISOString().slice(0, 16);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function TimeTab({ env, reload }: { env: Environment; reload: () => void }) {
  const [target, setTarget] = useState(() => localInput(addDays(env.clock, 1)));
  const [progress, setProgress] = useState<string | undefined>();
  const [done, setDone] = useState<string | undefined>();
  const twin = env.twins.find((t) => t.state === 'ready') ?? env.twins[0];

  const advance = useAction(async (to: Date) => {
    if (!twin) throw new Error('This environment has no twins to advance.');
    setDone(undefined);
    setProgress(`Advancing to ${dateTime(to.toISOString())}…`);
    try {
      const res = await request<Advance | Record<string, never>>('POST', `/twins/${twin.id}/advance`, { at: to.toISOString() });
      if (res.status === 202) {
        // A long advance: follow it until it ends.
        const location = res.headers.get('location');
        let job = res.body as Advance;
        while (location && job.status === 'running') {
          setProgress(`Advancing… the clock is at ${dateTime(job.clock)}`);
          await sleep(500);
          job = await get<Advance>(location);
        }
        if (job.status === 'failed') throw new Error(job.failure ?? 'The advance failed.');
      }
      setDone(`The clock is now ${dateTime(to.toISOString())}; every due lifecycle event ran.`);
      reload();
    } finally {
      setProgress(undefined);
    }
  });

  return (
    <div class="time">
      <h2>Time</h2>
      <p class="clock">
        Environment clock: <strong>{dateTime(env.clock)}</strong>
      </p>
      <p class="muted">
        {env.clock_mode === 'living'
          ? 'The clock runs with wall time from the environment’s creation, as at the provider, and every twin reads it; events that fall due (renewals, expiries, scheduled messages) run within about a second. Advancing moves it further and runs every event due on the way in time order.'
          : 'This clock is frozen: it only moves when you advance it; every twin of the environment reads it, and due events (renewals, expiries) run in time order.'}
      </p>
      <div class="actions">
        <button type="button" class="primary" disabled={advance.busy} onClick={() => advance.run(addDays(env.clock, 1))}>
          +1 day
        </button>
        <button type="button" class="primary" disabled={advance.busy} onClick={() => advance.run(addMonth(env.clock))}>
          +1 month
        </button>
      </div>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          void advance.run(new Date(`${target}:00Z`));
        }}
      >
        <div class="field">
          <label for="advance-to">Advance to (UTC)</label>
          <input
            id="advance-to"
            type="datetime-local"
            required
            value={target}
            min={localInput(new Date(env.clock))}
            onInput={(e) => setTarget(e.currentTarget.value)}
          />
        </div>
        <button type="submit" class="secondary" disabled={advance.busy}>
          Advance
        </button>
      </form>
      <p role="status" class="ok-text">
        {progress ?? done ?? ''}
      </p>
      <ErrorNote error={advance.error} />
    </div>
  );
}
