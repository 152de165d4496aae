// How commands print: JSON (`--json`), aligned text tables, and a spinner on stderr while waiting
// (only when stderr is a terminal, so pipes and logs stay clean).

import type { CliIO, CommandContext } from './context.js';

export function printJson(io: CliIO, value: unknown): void {
  io.stdout(JSON.stringify(value ?? null, null, 2) + '\n');
}

/** Columns padded to the widest cell; the last column is never padded. */
export function table(rows: (string | number | null | undefined)[][]): string {
  if (rows.length === 0) return '';
  const cells = rows.map((r) => r.map((c) => (c === null || c === undefined ? '-' : String(c))));
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => r[i]?.length ?? 0)));
  return (
    cells
      .map((r) =>
        r
          .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

/** Print data as JSON or as the text `render` makes of it. */
export function show<T>(ctx: CommandContext, data: T, render: (data: T) => string): void {
  if (ctx.json) printJson(ctx.io, data);
  else ctx.io.stdout(render(data));
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface Progress {
  update(text: string): void;
  done(): void;
}

/** A spinner with a status line on stderr while something is awaited; silent when not a TTY. */
export function progress(io: CliIO, text: string): Progress {
  if (!io.stderrIsTTY) return { update() {}, done() {} };
  let label = text;
  let frame = 0;
  const started = Date.now();
  const draw = () => io.stderr(`\r\x1b[2K${FRAMES[frame++ % FRAMES.length]} ${label} (${Math.round((Date.now() - started) / 1000)}s)`);
  draw();
  const timer = setInterval(draw, 100);
  timer.unref();
  return {
    update(next) {
      label = next;
    },
    done() {
      clearInterval(timer);
      io.stderr('\r\x1b[2K');
    },
  };
}
