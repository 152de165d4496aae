// Every twin's SDK snippet (its definition's `sdk`, what the console, `twins twin credential` and the
// MCP server show) runs unchanged against a fresh twin: rendered with the twin's URL and credential,
// written as a module and imported, so the official SDK makes the call it shows.

import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HIDDEN, renderSdkSnippet } from '../../control-plane/client/sdk-snippets.js';
import { loadAllTwins } from '../../twin-runtime/registry.js';
import { startTwin } from '../helpers/twin.js';

// Inside the repository, so the snippet's bare imports resolve to the installed SDKs.
const cacheDir = join(import.meta.dirname, '..', '..', '.tmp');
mkdirSync(cacheDir, { recursive: true });
const dir = mkdtempSync(join(cacheDir, 'sdk-snippets-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const twins = (await loadAllTwins()).filter((d) => d.sdk);
t.ok(twins.length >= 10, `twins with an SDK snippet: ${twins.map((d) => d.slug).join(', ')}`);

for (const def of twins) {
  t.test(`${def.slug}: the snippet runs against the twin`, async (t) => {
    const twin = await startTwin(def.slug);
    t.teardown(() => twin.close());
    const credential = twin.server.host.credential();
    const snippet = renderSdkSnippet(def.sdk, twin.url, credential)!;
    t.ok(snippet, 'rendered');
    t.notMatch(snippet.code, /\{\{|<[a-z_]+: show it above>/, 'every placeholder filled');
    t.ok(Object.keys(snippet.env).length >= 2, 'shell variables for the key and the URL');
    for (const [name, value] of Object.entries(snippet.env)) t.ok(value && !value.includes('{{') && value !== HIDDEN(name), `${name}=${value}`);
    t.equal(snippet.install, `npm install ${snippet.package}`);
    const file = join(dir, `${def.slug}.mjs`);
    writeFileSync(file, snippet.code + '\n');
    // The SDKs throw on an error answer, and nothing but the twin listens on its port.
    await t.resolves(import(pathToFileURL(file).href), snippet.code);
  });
}
