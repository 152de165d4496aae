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
import { focusPageTitle, lazyPage, preloadAhead } from './components/lazy.js';

// The environments list (and sign-in) come with the first script; every other page is in one chunk
// (pages/later.ts) fetched when first shown, or ahead of that (preloadAhead).
const later = () => import('./pages/later.js');
const EnvironmentPage = lazyPage('the environment', () => later().then((m) => m.EnvironmentPage));
const SeedsPage = lazyPage('the seeds', () => later().then((m) => m.SeedsPage));
const ScenariosPage = lazyPage('the scenarios', () => later().then((m) => m.ScenariosPage));
const TestsPage = lazyPage('the tests', () => later().then((m) => m.TestsPage));
const TestPage = lazyPage('the test', () => later().then((m) => m.TestPage));
const AttemptPage = lazyPage('the attempt', () => later().then((m) => m.AttemptPage));
const OrganizationPage = lazyPage('the organization', () => later().then((m) => m.OrganizationPage));
const CatalogPage = lazyPage('the catalog', () => later().then((m) => m.CatalogPage));

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
    return focusPageTitle();
  }, [pageKey]);
  // Once the first page is up, the other pages' chunk is fetched ahead of need.
  useEffect(() => preloadAhead([EnvironmentPage, SeedsPage, ScenariosPage, TestsPage, TestPage, AttemptPage, OrganizationPage, CatalogPage]), []);
  return (
    <>
      {/* biome-ignore lint/a11y/useValidAnchor: a skip link is a link to #main; the handler moves focus there without touching the URL */}
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
