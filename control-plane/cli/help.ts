// Help text for any command, made from the command table (spec.ts).

import { optionsOf, type CommandSpec, type OptionSpec } from './spec.js';

function optionLabel(o: OptionSpec): string {
  const long = `--${o.name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`;
  return o.short ? `-${o.short}, ${long}` : `    ${long}`;
}

function optionHelp(o: OptionSpec): string {
  const notes: string[] = [];
  if (o.required) notes.push('required');
  if (o.multiple) notes.push('repeatable');
  if (o.env) notes.push(`env ${o.env}`);
  return notes.length > 0 ? `${o.help} [${notes.join(', ')}]` : o.help;
}

function columns(rows: [string, string][], indent = '  '): string {
  const width = Math.min(34, Math.max(...rows.map(([a]) => a.length)) + 2);
  return rows.map(([a, b]) => (a.length + 2 > width ? `${indent}${a}\n${indent}${' '.repeat(width)}${b}` : `${indent}${a.padEnd(width)}${b}`)).join('\n');
}

export function usageLine(path: CommandSpec[]): string {
  const name = path.map((c) => c.name).join(' ');
  const cmd = path.at(-1)!;
  const parts = [name];
  if (cmd.subcommands && !cmd.load) parts.push('COMMAND');
  else {
    for (const o of cmd.options ?? []) {
      if (!o.required) continue;
      parts.push(`--${o.name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}${o.multiple ? '...' : ''}`);
    }
    for (const a of cmd.args ?? []) parts.push(a.optional ? `[${a.name}]` : a.name);
    parts.push('[options]');
  }
  return parts.join(' ');
}

export function renderHelp(path: CommandSpec[]): string {
  const cmd = path.at(-1)!;
  const name = path.map((c) => c.name).join(' ');
  const out: string[] = [`${name} — ${cmd.summary}`, '', 'Usage:', `  ${usageLine(path)}`];
  if (cmd.subcommands && cmd.load) out.push(`  ${name} COMMAND [options]`);
  if (cmd.description) out.push('', cmd.description);
  if (cmd.subcommands) {
    out.push('', 'Commands:', columns(cmd.subcommands.map((c) => [c.name, c.summary])));
  }
  if (cmd.args?.length && cmd.load) out.push('', 'Arguments:', columns(cmd.args.map((a) => [a.name, a.help])));
  out.push('', 'Options:', columns(optionsOf(cmd).map((o) => [optionLabel(o), optionHelp(o)])));
  if (cmd.examples?.length) out.push('', 'Examples:', ...cmd.examples.map((e) => `  ${e}`));
  if (cmd.subcommands) out.push('', `Run '${name} COMMAND --help' for a command's options.`);
  return out.join('\n') + '\n';
}
