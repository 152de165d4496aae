// Small pieces every page uses: loading data, errors, copy, two-step confirmation, status badges,
// code blocks and scrollable tables (focusable, so a keyboard can scroll them).

import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../lib/api.js';

export interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  reload(): void;
}

/** Load once per `deps` change; `reload` loads again keeping the old data on screen meanwhile. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: Error) => live && setState((s) => ({ data: s.data, error, loading: false })),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** Call `fn` every `ms` while `active`. */
export function useInterval(fn: () => void, ms: number, active: boolean): void {
  const saved = useRef(fn);
  saved.current = fn;
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => saved.current(), ms);
    return () => clearInterval(t);
  }, [ms, active]);
}

export function ErrorNote({ error, id }: { error: unknown; id?: string }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const status = error instanceof ApiError && error.status ? ` (${error.status})` : '';
  return (
    <p class="error" role="alert" id={id}>
      {message}
      {status && <span class="muted">{status}</span>}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Twins console`;
  }, [title]);
  return (
    <div class="page-header">
      <h1 tabIndex={-1} ref={ref} id="page-title">
        {title}
      </h1>
      {children && <div class="actions">{children}</div>}
    </div>
  );
}

async function writeClipboard(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('copy refused');
}

export function CopyButton({ text, label, class: cls }: { text: string; label: string; class?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(t);
  }, [state]);
  return (
    <span class="copy">
      <button
        type="button"
        class={cls ?? 'secondary small'}
        onClick={() =>
          writeClipboard(text).then(
            () => setState('copied'),
            () => setState('failed'),
          )
        }
      >
        {label}
      </button>
      <span role="status" class="copy-state">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select the text instead' : ''}
      </span>
    </span>
  );
}

/** A destructive action asked twice: the first press shows Confirm and Cancel. */
export function ConfirmButton({
  label,
  confirmLabel,
  onConfirm,
  disabled,
}: {
  label: string;
  confirmLabel: string;
  onConfirm: () => Promise<void> | void;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" class="danger-outline" disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    // biome-ignore lint/a11y/useSemanticElements: an inline pair of buttons, not a form section (fieldset)
    <span class="confirm" role="group" aria-label={confirmLabel}>
      <button
        type="button"
        class="danger"
        ref={confirmRef}
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" class="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

const TONES: Record<string, 'ok' | 'warn' | 'bad' | 'info'> = {
  ready: 'ok',
  running: 'info',
  passed: 'ok',
  succeeded: 'ok',
  provisioning: 'info',
  pending: 'info',
  starting: 'info',
  degraded: 'warn',
  stopping: 'warn',
  stopped: 'warn',
  expired: 'warn',
  failed: 'bad',
};

export function Badge({ status, label }: { status: string; label?: string }) {
  return <span class={`badge ${TONES[status] ?? 'info'}`}>{label ?? status}</span>;
}

export function CodeBlock({ text, label, class: cls }: { text: string; label: string; class?: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling block must take keyboard focus to scroll (axe scrollable-region-focusable)
    // biome-ignore lint/a11y/useSemanticElements: the code block itself is the named, scrollable region (keeps its pre formatting)
    <pre class={`code ${cls ?? ''}`} tabIndex={0} role="region" aria-label={label}>
      <code>{text}</code>
    </pre>
  );
}

/** A labelled, keyboard-scrollable table region; `tall` tables scroll inside it under a sticky header. */
export function TableWrap({ label, tall = false, children }: { label: string; tall?: boolean; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling table must take keyboard focus to scroll (axe scrollable-region-focusable)
    <section class={tall ? 'table-wrap tall' : 'table-wrap'} tabIndex={0} aria-label={label}>
      {children}
    </section>
  );
}

/** Run an action, keeping its error for display and a busy flag for the button. */
export function useAction<A extends unknown[]>(
  fn: (...args: A) => Promise<void>,
): { run: (...args: A) => Promise<void>; busy: boolean; error: Error | undefined; clear(): void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const run = async (...args: A) => {
    setBusy(true);
    setError(undefined);
    try {
      await fn(...args);
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error, clear: () => setError(undefined) };
}
