// Waiting from the command line: the shared wait of the client, with a spinner on a terminal and
// Ctrl-C ending it cleanly.

import type { CommandContext } from './context.js';
import { CliError } from './context.js';
import { progress } from './output.js';
import type { WaitOptions } from '../client/workflows.js';

export async function waiting<T>(ctx: CommandContext, label: string, wait: (o: WaitOptions) => Promise<T>): Promise<T> {
  const spinner = progress(ctx.io, label);
  const abort = new AbortController();
  void ctx.io.stopped.then(() => abort.abort());
  try {
    return await wait({ timeoutMs: (ctx.int('timeout') ?? 120) * 1000, onProgress: (s) => spinner.update(s), signal: abort.signal });
  } catch (e) {
    if ((e as Error).name === 'WaitError') throw new CliError((e as Error).message);
    throw e;
  } finally {
    spinner.done();
  }
}
