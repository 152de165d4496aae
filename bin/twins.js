#!/usr/bin/env node
// The `twins` command runs the compiled CLI (build with `npm run build` / `make build`).
// It needs Node.js 22 or newer. Started by an older Node, it runs itself again under the Node the
// project pins (node_modules/.bin/node, installed by `npm ci` / `make`), or says what to do.
// Kept to syntax any Node runs, so an old one gets this far.

const MIN_MAJOR = 22;
const major = Number(process.versions.node.split('.')[0]);

if (major >= MIN_MAJOR) {
  // Compiled code kept on disk between runs (twin-runtime/main.ts says why); before the CLI's imports.
  const { enableCompileCache } = await import('node:module');
  if (enableCompileCache) enableCompileCache();
  await import('../dist/control-plane/cli/index.js');
} else {
  const { spawn } = await import('node:child_process');
  const { existsSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  const pinned = fileURLToPath(new URL('../node_modules/.bin/node', import.meta.url));
  if (!existsSync(pinned)) {
    process.stderr.write(
      `twins needs Node.js ${MIN_MAJOR} or newer; this is ${process.version}.\n` +
        'Install Node.js 22 or 24 LTS, or run `make build` (or `npm ci`) in the twins checkout, which installs the Node it pins.\n',
    );
    process.exit(1);
  }
  // The same command under the pinned Node, its exit status ours. Ctrl-C reaches it from the terminal
  // (same process group), so SIGINT is only not fatal here; SIGTERM and SIGHUP are passed on.
  const child = spawn(pinned, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.on('SIGINT', () => {});
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (!signal) process.exit(code ?? 1);
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
}
