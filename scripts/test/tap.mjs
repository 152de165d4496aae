#!/usr/bin/env node
// `tap` without its per-module bookkeeping. tap loads @tapjs/processinfo into every test process and,
// through NODE_OPTIONS, into every process a test starts (each twin, the CLI); it re-reads every module
// those processes load and writes their lists to .tap/processinfo, for coverage and `tap --changed`,
// neither of which this suite uses. That cost 0.6–0.8 s of CPU per process started (a twin's start
// went from 0.75 to 1.4 s of CPU). The runner sets the list of files it skips
// (_TAPJS_PROCESSINFO_EXCLUDE_) when it starts; here that list is "every file", kept so whatever sets
// it again, and the runner is then tap's own.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const EXCLUDE = '_TAPJS_PROCESSINFO_EXCLUDE_';
const EVERY_FILE = '/./';
const env = process.env;
env[EXCLUDE] = EVERY_FILE;
process.env = new Proxy(env, {
  set(target, key, value) {
    target[key] = key === EXCLUDE ? EVERY_FILE : value;
    return true;
  },
});
const tapBin = createRequire(import.meta.url)
  .resolve('tap/package.json')
  .replace(/package\.json$/, 'dist/esm/run.mjs');
await import(pathToFileURL(tapBin).href);
