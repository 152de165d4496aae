// The bash completion script, sourced in a real bash, asks `twins __complete` (through a `twins`
// on PATH) and completes commands and twin slugs; the zsh script parses where zsh is installed.

import t from 'tap';
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_SOURCE, cliProcess } from './helpers.js';
import { TWIN_SLUGS } from '../../twin-runtime/registry.js';

const dir = mkdtempSync(join(tmpdir(), 'twins-completion-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const hasBash = await new Promise<boolean>((r) => execFile('bash', ['--version'], (err) => r(!err)));
t.test('bash completion runs `twins __complete`', { skip: hasBash ? false : 'bash is not installed' }, async (t) => {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'twins'), `#!/bin/sh\nexec "${process.execPath}" --import=tsx "${CLI_SOURCE}" "$@"\n`);
  chmodSync(join(bin, 'twins'), 0o755);
  const script = `source <(twins completion bash); COMP_WORDS=(twins env cr); COMP_CWORD=2; _twins; echo "\${COMPREPLY[*]}"; COMP_WORDS=(twins twin s); COMP_CWORD=2; _twins; echo "\${COMPREPLY[*]}"`;
  const out = await new Promise<string>((resolve, reject) =>
    execFile(
      'bash',
      ['-c', script],
      { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }, cwd: join(import.meta.dirname, '../..'), timeout: 90_000 },
      (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout)),
    ),
  );
  // The slugs starting with `s`, in the catalog's order (stripe, slack, sendgrid today).
  const sSlugs = TWIN_SLUGS.filter((slug) => slug.startsWith('s'));
  t.ok(sSlugs.length > 1, 'the catalog has several twins starting with s');
  t.same(out.trim().split('\n'), ['create', sSlugs.join(' ')]);
  const zsh = await new Promise<boolean>((r) => execFile('zsh', ['--version'], (err) => r(!err)));
  if (zsh) {
    const file = join(dir, '_twins');
    writeFileSync(file, (await cliProcess(['completion', 'zsh'])).stdout);
    const check = await new Promise<number>((r) => execFile('zsh', ['-n', file], (err) => r(err ? 1 : 0)));
    t.equal(check, 0, 'the zsh script parses');
  } else t.comment('zsh is not installed: its script was not parsed here');
});
