// The Twins web console: one page at `/`, every view a hash route, every byte of data from the
// control plane's public REST API on this same origin.

import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import './styles.css';
import { accessToken, consumeSignInFromAddress, onSessionChange, signOut } from './lib/session.js';
import { get, type Me } from './lib/api.js';
import { href, useRoute, type Route } from './lib/router.js';
import { useLoad } from './components/ui.js';
import { SignInPage } from './pages/sign-in.js';
import { EnvironmentsPage } from './pages/environments.js';
import { EnvironmentPage } from './pages/environment.js';
import { SeedsPage } from './pages/seeds.js';
import { ScenariosPage } from './pages/scenarios.js';
import { TestsPage, TestPage, AttemptPage } from './pages/tests.js';
import { OrganizationPage } from './pages/organization.js';
import { CatalogPage } from './pages/catalog.js';

const SECTIONS = [
  ['environments', 'Environments'],
  ['seeds', 'Seeds'],
  ['scenarios', 'Scenarios'],
  ['tests', 'Tests'],
  ['catalog', 'Catalog'],
  ['organization', 'Organization'],
] as const;

function View({ route, me }: { route: Route; me: Me | undefined }) {
  const [section = 'environments', id, sub, subId] = route.parts;
  switch (section) {
    case 'environments':
      if (!id) return <EnvironmentsPage />;
      return <EnvironmentPage id={id} tab={sub ?? 'overview'} itemId={subId} query={route.query} />;
    case 'seeds':
      return <SeedsPage />;
    case 'scenarios':
      return <ScenariosPage />;
    case 'tests':
      if (!id) return <TestsPage />;
      if (sub === 'attempts' && subId) return <AttemptPage testId={id} attemptId={subId} />;
      return <TestPage id={id} />;
    case 'catalog':
      return <CatalogPage />;
    case 'organization':
      return <OrganizationPage me={me} />;
    default:
      return (
        <section>
          <h1 tabIndex={-1} id="page-title">
            Not found
          </h1>
          <p>
            Nothing lives at this address. Go to <a href={href('environments')}>the environments</a>.
          </p>
        </section>
      );
  }
}

function Shell() {
  const route = useRoute();
  const me = useLoad(() => get<Me>('/users/me'), []);
  const section = route.parts[0] ?? 'environments';
  // Focus the new page's heading when the page (not a detail inside it) changes, for screen readers.
  const pageKey = route.parts.slice(0, 3).join('/');
  const firstPage = useRef(true);
  useEffect(() => {
    // The first page keeps the browser's own start (Tab reaches the skip link first).
    if (firstPage.current) {
      firstPage.current = false;
      return;
    }
    const t = requestAnimationFrame(() => document.getElementById('page-title')?.focus({ preventScroll: true }));
    return () => cancelAnimationFrame(t);
  }, [pageKey]);
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={href('environments')}>
          Twins
        </a>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map(([key, label]) => (
              <li key={key}>
                <a href={href(key)} aria-current={section === key ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          {me.data && (
            <span class="muted" title={`${me.data.role} of this organization`}>
              {me.data.email} · {me.data.role}
            </span>
          )}
          <button type="button" class="secondary small" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {me.error ? <p role="alert">{me.error.message}</p> : <View route={route} me={me.data} />}
      </main>
    </>
  );
}

function App() {
  const [booting, setBooting] = useState(true);
  const [signedIn, setSignedIn] = useState(() => !!accessToken());
  const [signInError, setSignInError] = useState<string | undefined>();
  useEffect(() => {
    const off = onSessionChange(() => setSignedIn(!!accessToken()));
    void consumeSignInFromAddress().then((r) => {
      if (r?.error) setSignInError(r.error);
      setSignedIn(!!accessToken());
      setBooting(false);
    });
    return off;
  }, []);
  if (booting) return <p role="status">Signing in…</p>;
  if (!signedIn) return <SignInPage error={signInError} />;
  return <Shell />;
}

render(<App />, document.getElementById('app')!);
