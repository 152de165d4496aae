// `twins` argument handling: find the command, answer --help / --version at any level (stdout,
// exit 0), parse and check arguments (usage errors exit 2, naming the argument), run the handler
// (failures exit 1 with the API's sentence). Handlers are imported only when they run.

import { resolve } from 'node:path';
import { packageVersion } from '../package-info.js';
import { parseCommand, wants } from './args.js';
import { CliError, UsageError, type CliIO, type CommandContext } from './context.js';
import { renderHelp } from './help.js';
import { runningServer } from './local-server.js';
import { resolveCommand, type CommandSpec } from './spec.js';

export const COMPLETE_COMMAND = '__complete';

export async function runCli(argv: string[], io: CliIO): Promise<number> {
  if (argv[0] === COMPLETE_COMMAND) {
    const { complete } = await import('./completion.js');
    io.stdout(complete(argv.slice(1)).join('\n') + '\n');
    return 0;
  }
  const { path, rest } = resolveCommand(argv);
  const cmd = path.at(-1)!;
  const command = path.map((c) => c.name).join(' ');
  try {
    if (wants(rest, 'help')) return (io.stdout(renderHelp(path)), 0);
    if (wants(rest, 'version') || (path.length === 2 && cmd.name === 'version')) {
      const extra = rest.find((a) => a !== '--version');
      if (cmd.name === 'version' && extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`, command);
      return (io.stdout(`twins ${packageVersion()}\n`), 0);
    }
    if (path.length === 2 && cmd.name === 'help') return help(rest, io);
    if (!cmd.load) {
      // A group of commands: anything here is a mistake, the missing command included.
      parseCommand(cmd, command, rest, io.env);
      throw new UsageError(`missing command (one of: ${cmd.subcommands!.map((c) => c.name).join(', ')})`, command);
    }
    const parsed = parseCommand(cmd, command, rest, io.env);
    const handler = await cmd.load();
    return (await handler(context(cmd, command, parsed, io))) ?? 0;
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`${e.command}: ${e.message}\nRun '${e.command} --help' for usage.\n`);
      return 2;
    }
    io.stderr(`${command}: ${errorSentence(e)}\n`);
    return 1;
  }
}

function errorSentence(e: unknown): string {
  if (e instanceof Error) {
    const known = ['CliError', 'TwinsApiError', 'TwinsUnreachableError'];
    if (known.includes(e.name) || e instanceof CliError) return e.message;
    return e.message || String(e);
  }
  return String(e);
}

function help(rest: string[], io: CliIO): number {
  const { path, rest: unknown } = resolveCommand(rest);
  if (unknown.length > 0) throw new UsageError(`unknown command '${[...path.slice(1).map((c) => c.name), unknown[0]].join(' ')}'`, 'twins help');
  io.stdout(renderHelp(path));
  return 0;
}

function context(spec: CommandSpec, command: string, parsed: ReturnType<typeof parseCommand>, io: CliIO): CommandContext {
  const { options, args } = parsed;
  let url: string | undefined;
  const ctx: CommandContext = {
    spec,
    command,
    options,
    args,
    io,
    json: options.json === true,
    url() {
      if (url) return url;
      const explicit = ctx.str('url');
      if (explicit) return (url = explicit);
      return (url = localUrl(io) ?? 'http://127.0.0.1:8080');
    },
    async client() {
      const token = ctx.str('token');
      if (!token) {
        throw new UsageError(
          'missing credential: pass --token, or set TWINS_TOKEN or TWINS_API_KEY (locally: export TWINS_TOKEN=$(twins token --email you@example.com --org acme --role admin))',
          command,
        );
      }
      const { createTwinsClient } = await import('../client/index.js');
      return createTwinsClient({ url: ctx.url(), token });
    },
    str: (name) => (typeof options[name] === 'string' ? (options[name] as string) : undefined),
    int: (name) => (typeof options[name] === 'string' ? Number(options[name]) : undefined),
    list: (name) => (Array.isArray(options[name]) ? (options[name] as string[]) : typeof options[name] === 'string' ? [options[name] as string] : []),
    flag: (name) => options[name] === true,
    usage: (message) => new UsageError(message, command),
  };
  return ctx;
}

/** The URL of the server running from TWINS_DATA_DIR, if one is. */
function localUrl(io: CliIO): string | undefined {
  return runningServer(resolve(io.cwd, io.env.TWINS_DATA_DIR ?? './.data'))?.url;
}
