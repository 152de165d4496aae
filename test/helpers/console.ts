// What the console's browser tests share: the console built (once, under a lock, when its sources
// changed), screenshots as artefacts, and an axe-core check of the page as it stands.

import { mkdirSync, readFileSync, rmdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { buildConsole, consoleStale, CONSOLE_OUT } from '../../scripts/console/build.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Screenshots of every page (gitignored). */
export const ARTEFACTS = join(ROOT, 'artifacts', 'console');

export async function ensureConsoleBuilt(): Promise<void> {
  if (!consoleStale()) return;
  const lock = `${CONSOLE_OUT}.lock`;
  mkdirSync(join(CONSOLE_OUT, '..'), { recursive: true });
  for (let i = 0; ; i++) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (i > 600) throw new Error('timed out waiting for another test to build the console');
      await new Promise((r) => setTimeout(r, 100));
      if (!consoleStale()) return;
    }
  }
  try {
    if (consoleStale()) await buildConsole();
  } finally {
    rmdirSync(lock);
  }
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTEFACTS, { recursive: true });
  const path = join(ARTEFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/**
 * Run axe-core in the page (evaluated through the DevTools protocol, which the page's CSP does
 * not govern) against WCAG 2.1 A/AA and best practices; returns the serious and critical violations.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate('typeof window.axe !== "undefined"');
  if (!loaded) await page.evaluate(AXE_SOURCE);
  const result = (await page.evaluate(`window.axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    resultTypes: ['violations'],
  }).then((r) => ({ violations: r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => ({ target: n.target, failureSummary: n.failureSummary })) })), passes: r.passes.length }))`)) as {
    violations: AxeViolation[];
  };
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
