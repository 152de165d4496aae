// The control plane's logger: pino, as JSON lines, or through pino-pretty when a person watches the
// terminal (TWINS_LOG_FORMAT overrides). pino-pretty is loaded only then, as a synchronous stream.

import pino, { type Logger } from 'pino';
import type { Config } from './config.js';

export async function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>): Promise<Logger> {
  if (config.logFormat !== 'pretty' || config.logLevel === 'silent') return pino({ level: config.logLevel });
  const { default: pretty } = await import('pino-pretty');
  return pino(
    { level: config.logLevel },
    pretty({
      colorize: !!process.stdout.isTTY,
      sync: true,
      translateTime: 'HH:MM:ss.l',
      ignore: 'pid,hostname,component,reqId,method,route,status,ms',
      singleLine: true,
    }),
  );
}
