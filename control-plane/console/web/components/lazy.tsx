// Pages other than the first one a visitor sees live in another chunk (esbuild code splitting),
// loaded by `import()` when first shown (or fetched ahead, see preloadAhead), so the script
// a first visit waits for holds only the shell, the sign-in page and the environments list.

import type { ComponentType, JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Loading } from './ui.js';

export interface LazyPage<P> {
  (props: P): JSX.Element;
  /** Fetch and evaluate the page's chunk (once); resolves when it can render without waiting. */
  preload(): Promise<unknown>;
}

let titleFocusWanted = false;

function focusTitleIfWanted() {
  const title = document.getElementById('page-title');
  if (!titleFocusWanted || !title) return;
  titleFocusWanted = false;
  title.focus({ preventScroll: true });
}

/**
 * Move focus to the new page's heading (for screen readers) once it exists: at the next frame, or
 * when a page still loading its chunk has rendered.
 */
export function focusPageTitle(): () => void {
  titleFocusWanted = true;
  const frame = requestAnimationFrame(focusTitleIfWanted);
  return () => {
    titleFocusWanted = false;
    cancelAnimationFrame(frame);
  };
}

export function lazyPage<P extends object>(what: string, load: () => Promise<ComponentType<P>>): LazyPage<P> {
  let loaded: ComponentType<P> | undefined;
  let pending: Promise<ComponentType<P>> | undefined;
  const preload = () =>
    (pending ??= load().then(
      (page) => (loaded = page),
      (e: unknown) => {
        pending = undefined; // a later visit tries again (e.g. the server was restarting)
        throw e;
      },
    ));
  function Page(props: P) {
    const [, setReady] = useState(!!loaded);
    const [error, setError] = useState<unknown>();
    useEffect(() => {
      if (loaded) return;
      let live = true;
      preload().then(
        () => live && setReady(true),
        (e: unknown) => live && setError(e),
      );
      return () => {
        live = false;
      };
    }, []);
    useEffect(() => {
      if (loaded) requestAnimationFrame(focusTitleIfWanted);
    }, [!!loaded]);
    if (loaded) {
      const Loaded = loaded;
      return <Loaded {...props} />;
    }
    if (error) {
      return (
        <section>
          <h1 tabIndex={-1} id="page-title">
            This page did not load
          </h1>
          <p role="alert">
            {error instanceof Error ? error.message : String(error)}{' '}
            <button type="button" class="secondary small" onClick={() => location.reload()}>
              Reload
            </button>
          </p>
        </section>
      );
    }
    return <Loading what={what} />;
  }
  return Object.assign(Page, { preload });
}

/**
 * Fetch the later pages' chunk ahead of need: as soon as a pointer or the keyboard reaches a link to
 * another page, else a few seconds after the first page is up, while the browser is idle (not at
 * once, where it would compete with the first page's own requests and rendering).
 */
export function preloadAhead(pages: LazyPage<never>[]): () => void {
  const run = () => {
    stop();
    pages.forEach((p) => void p.preload().catch(() => undefined));
  };
  const onIntent = (e: Event) => {
    if (e.target instanceof Element && e.target.closest('a[href^="#/"]')) run();
  };
  const timer = setTimeout(() => ('requestIdleCallback' in window ? requestIdleCallback(run, { timeout: 2000 }) : run()), 3000);
  const stop = () => {
    clearTimeout(timer);
    for (const type of ['pointerover', 'focusin', 'touchstart']) document.removeEventListener(type, onIntent);
  };
  for (const type of ['pointerover', 'focusin', 'touchstart']) document.addEventListener(type, onIntent, { passive: true });
  return stop;
}
