// A worker thread running one of the control plane's modules: the compiled .js beside the caller,
// or under tsx (tests, benches) the .ts through tsx's loader, which a worker does not inherit from
// `--import=tsx`.

import { Worker } from 'node:worker_threads';

/** Start the module `name` (no extension) that sits beside `callerUrl` (the caller's import.meta.url). */
export function startThread(callerUrl: string, name: string, options: ConstructorParameters<typeof Worker>[1]): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, callerUrl), options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL(`./${name}.ts`, callerUrl).href;
  const code = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(code, { ...options, eval: true });
}
