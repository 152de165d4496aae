// Parse a command's arguments against its spec with node:util parseArgs; every mistake becomes a
// UsageError that names the argument (exit 2).

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError, type OptionValue } from './context.js';
import { optionsOf, type CommandSpec, type OptionSpec } from './spec.js';

export interface Parsed {
  options: Record<string, OptionValue>;
  args: Record<string, string>;
  positionals: string[];
}

export const flagName = (o: OptionSpec) => `--${o.name}`;

/** Does the user ask for help or the version anywhere in these arguments (before a `--`)? */
export function wants(rest: string[], which: 'help' | 'version'): boolean {
  const end = rest.indexOf('--');
  const head = end === -1 ? rest : rest.slice(0, end);
  return which === 'help' ? head.includes('--help') || head.includes('-h') : head.includes('--version');
}

export function parseCommand(cmd: CommandSpec, command: string, rest: string[], env: NodeJS.ProcessEnv): Parsed {
  const specs = optionsOf(cmd);
  const config: ParseArgsConfig['options'] = {};
  for (const o of specs) config[o.name] = { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) };
  let values: Record<string, OptionValue>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: rest, options: config, strict: true, allowPositionals: true }) as {
      values: Record<string, OptionValue>;
      positionals: string[];
    });
  } catch (e) {
    throw new UsageError(parseArgsMessage(e as Error), command);
  }

  const expected = cmd.args ?? [];
  if (positionals.length > expected.length) {
    const extra = positionals[expected.length]!;
    const sub = cmd.subcommands?.map((c) => c.name);
    throw new UsageError(sub && expected.length === 0 ? `unknown command '${extra}' (commands: ${sub.join(', ')})` : `unexpected argument '${extra}'`, command);
  }
  const args: Record<string, string> = {};
  expected.forEach((a, i) => {
    const v = positionals[i];
    if (v === undefined) {
      if (!a.optional) throw new UsageError(`missing argument ${a.name} (${a.help})`, command);
      return;
    }
    if (v.trim() === '') throw new UsageError(`argument ${a.name} is empty`, command);
    args[a.name] = v;
  });

  for (const o of specs) {
    let label = flagName(o);
    if (values[o.name] === undefined && o.env) {
      const name = env[o.env] ? o.env : o.name === 'token' && env.TWINS_API_KEY ? 'TWINS_API_KEY' : undefined;
      if (name) (values[o.name] = env[name]), (label = name);
    }
    const v = values[o.name];
    if (v === undefined) {
      if (o.required) throw new UsageError(`missing required option ${flagName(o)}${o.value ? ` ${o.value}` : ''} (${o.help})`, command);
      continue;
    }
    for (const one of Array.isArray(v) ? v : [v]) {
      if (typeof one !== 'string') continue;
      if (o.int) checkInt(o, label, one, command);
      if (o.choices && !o.choices.includes(one)) {
        throw new UsageError(`${label} must be one of ${o.choices.join(', ')} (got '${one}')`, command);
      }
      if (one.trim() === '' && o.type === 'string') throw new UsageError(`${label} is empty`, command);
    }
  }
  return { options: values, args, positionals };
}

function checkInt(o: OptionSpec, label: string, raw: string, command: string): void {
  const n = /^-?\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < o.int!.min || n > o.int!.max) {
    throw new UsageError(`${label} must be a whole number from ${o.int!.min} to ${o.int!.max} (got '${raw}')`, command);
  }
}

/** parseArgs says `Unknown option '--x'. To specify a positional argument starting with a '-', …`: keep the first sentence. */
function parseArgsMessage(e: Error): string {
  const code = (e as NodeJS.ErrnoException).code;
  let first = e.message.split(/\.\s/)[0]!.replace(/\.$/, '');
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') first = first.replace(/^Option '([^' ]+)[^']*' argument missing$/, "option '$1' needs a value");
  return first.charAt(0).toLowerCase() + first.slice(1);
}
