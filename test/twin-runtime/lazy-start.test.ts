// A twin process loads only what answering needs at its start (issue 40): the packages a request
// may never need (undici for deliveries and the gateway, qs for form bodies, RE2 for user patterns,
// ws for Socket Mode) load on their first use. Each twin of the catalog is started as the process
// driver starts it (dist/twin-runtime/main.js; deliveries restricted to
// public addresses, as in the images: the agent that checks them is made with the first delivery), with a module hook that
// writes every module it loads; then one form request shows qs arriving with its first use.

import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { ensureBuilt } from '../orchestration/build.js';
import { TWIN_SLUGS } from '../../twin-runtime/registry.js';

const ROOT = join(import.meta.dirname, '..', '..');
/** Packages no twin needs until a request (or a background job) uses them. */
const LAZY_PACKAGES = ['undici', 'qs', 're2js', 'ws', 'side-channel'];

ensureBuilt();
const dir = mkdtempSync(join(tmpdir(), 'twins-lazy-start-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const HOOK = join(dir, 'hook.mjs');
writeFileSync(
  HOOK,
  `import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
registerHooks({ load(url, context, next) { appendFileSync(process.env.LOADED_LIST, url + '\\n'); return next(url, context); } });
`,
);

interface Started {
  url: string;
  apiKey: string;
  loaded(): string[];
  stop(): Promise<void>;
}

async function start(slug: string): Promise<Started> {
  const list = join(dir, `${slug}.loaded`);
  writeFileSync(list, '');
  const child = spawn(
    process.execPath,
    ['--import', pathToFileURL(HOOK).href, join(ROOT, 'dist', 'twin-runtime', 'main.js'), '--twin', slug, '--data', join(dir, `${slug}.sqlite`)],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, LOADED_LIST: list, TWINS_EGRESS: 'public' } },
  );
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${slug} exited ${code}`)));
  });
  const { url, api_key: apiKey } = JSON.parse(line) as { url: string; api_key: string };
  const health = await fetch(`${url}/_twin/health`);
  await health.text();
  return {
    url,
    apiKey,
    loaded: () => readFileSync(list, 'utf8').split('\n').filter(Boolean),
    stop: async () => {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
    },
  };
}

const packagesIn = (urls: string[]) => new Set(urls.map((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1]).filter((p): p is string => !!p));

t.test('no twin of the catalog loads a package it does not need at its start', async (t) => {
  t.ok(TWIN_SLUGS.length > 0, 'the catalog lists twins');
  for (const slug of TWIN_SLUGS) {
    const twin = await start(slug);
    try {
      const loaded = twin.loaded();
      t.ok(
        loaded.some((u) => u.includes(`/twins/${slug}/`)),
        `${slug}: the hook saw the twin's own modules`,
      );
      const packages = packagesIn(loaded);
      t.ok(packages.has('better-sqlite3'), `${slug}: the hook saw the packages it needs`);
      for (const lazy of LAZY_PACKAGES) t.notOk(packages.has(lazy), `${slug} does not load ${lazy} at its start`);
    } finally {
      await twin.stop();
    }
  }
});

t.test('a package loaded on first use arrives with that use', async (t) => {
  const twin = await start('stripe');
  try {
    t.notOk(packagesIn(twin.loaded()).has('qs'), 'no qs before a form body');
    const res = await fetch(`${twin.url}/v1/customers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${twin.apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=lazy%40example.com&metadata[source]=lazy-start',
    });
    const body = (await res.json()) as { email?: string; metadata?: Record<string, string> };
    t.equal(res.status, 200);
    t.equal(body.email, 'lazy@example.com');
    t.same(body.metadata, { source: 'lazy-start' }, 'the bracket form was decoded');
    t.ok(packagesIn(twin.loaded()).has('qs'), 'qs loaded with the first form body');
  } finally {
    await twin.stop();
  }
});
