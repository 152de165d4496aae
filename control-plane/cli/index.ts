// The `twins` process: run the command line, then exit with its code. The first SIGINT/SIGTERM
// asks a long-running command to stop (it closes what it opened); a second one exits at once.

import { runCli } from './main.js';
import { runAsConfiguredUser } from './run-as.js';

runAsConfiguredUser(process.env);

let signals = 0;
const stopped = new Promise<string>((resolve) => {
  const onSignal = (signal: NodeJS.Signals) => {
    signals++;
    if (signals > 1) process.exit(130);
    resolve(signal);
    // A command that does not wind down on its own is not kept alive by the signal; `serve` first
    // drains requests in flight for up to TWINS_DRAIN_MS (default 10 s), so it gets that long more.
    setTimeout(() => process.exit(130), 10_000 + (Number(process.env.TWINS_DRAIN_MS) || 10_000)).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
});

const code = await runCli(process.argv.slice(2), {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
  env: process.env,
  cwd: process.cwd(),
  stdoutIsTTY: !!process.stdout.isTTY,
  stderrIsTTY: !!process.stderr.isTTY,
  stopped,
});
// Pipes and files are written synchronously on Linux; wait for stdout anyway before leaving.
process.stdout.write('', () => process.exit(code));
