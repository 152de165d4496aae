// What a command handler gets: its parsed arguments, the terminal it writes to, and (for commands
// over the REST API) the typed client, built from --url/--token or the environment.

import type { TwinsClient } from '../client/index.js';
import type { CommandSpec } from './spec.js';

export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** The whole of stdin (for `-` arguments). */
  readStdin(): Promise<string>;
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Settles when the user asks a long-running command to stop (SIGINT / SIGTERM), with the signal. */
  stopped: Promise<string>;
}

/** A mistake in how the command was called: exit 2, naming the argument. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A failure while doing what was asked: exit 1 with this sentence. */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

export type OptionValue = string | boolean | string[] | undefined;

export interface CommandContext {
  spec: CommandSpec;
  /** `twins env create` */
  command: string;
  /** Options by long name (after environment fallbacks); ints already checked. */
  options: Record<string, OptionValue>;
  /** Positional arguments by their spec name (ENV_ID, …). */
  args: Record<string, string>;
  io: CliIO;
  json: boolean;
  /** The REST client for --url/--token (built on first use). */
  client(): Promise<TwinsClient>;
  /** The control plane URL the client talks to. */
  url(): string;
  str(name: string): string | undefined;
  int(name: string): number | undefined;
  list(name: string): string[];
  flag(name: string): boolean;
  usage(message: string): UsageError;
}
