// The served OpenAPI document passes Redocly's recommended rules and the rules Spectral's
// `spectral:oas` adds (redocly.yaml) with 0 errors and at most 5 warnings (the CLI is a dev
// dependency, run here offline).

import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestControlPlane } from '../helpers/control-plane.js';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'node_modules/.bin');
const MAX_WARNINGS = 5;

function run(cmd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      join(BIN, cmd),
      args,
      {
        cwd: ROOT,
        maxBuffer: 32 * 1024 * 1024,
        timeout: 110_000,
        // No telemetry or update checks: tests only talk to loopback.
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_UPDATE_NOTIFIER: '1' },
      },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

t.test('Redocly recommended and the spectral:oas rules pass the bar', async (t) => {
  const cp = await startTestControlPlane();
  const dir = mkdtempSync(join(tmpdir(), 'twins-openapi-'));
  t.teardown(async () => {
    await cp.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const doc = await cp.call('GET', '/openapi.json');
  t.equal(doc.status, 200);
  const file = join(dir, 'openapi.json');
  writeFileSync(file, doc.text);

  const redocly = await run('redocly', ['lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format=json']);

  const r = JSON.parse(redocly.stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
  const listed = r.problems.map((p) => `${p.ruleId}: ${p.message}`).join('\n');
  t.equal(r.totals.errors, 0, `Redocly errors:\n${listed}`);
  t.ok(r.totals.warnings <= MAX_WARNINGS, `Redocly warnings ${r.totals.warnings} ≤ ${MAX_WARNINGS}:\n${listed}`);
});
