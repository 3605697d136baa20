import type { LoggerService } from '@nestjs/common';
import pino, { type Logger, type LoggerOptions } from 'pino';
import type { AppConfig } from './app-config';

/**
 * Log format: JSON lines (pino) for machines, except on a developer's terminal (stdout a TTY and NODE_ENV not
 * production), where pino-pretty prints them readably. Both the request logger (AppModule) and the start-up
 * logger below use it.
 */
export function prettyLogs(config: Pick<AppConfig, 'nodeEnv'>, stdout: { isTTY?: boolean } = process.stdout): boolean {
  return Boolean(stdout.isTTY) && config.nodeEnv !== 'production';
}

/** pino options for the log format of `prettyLogs` (a pino-pretty transport, or plain JSON to stdout). */
export function logFormat(config: Pick<AppConfig, 'nodeEnv'>): Pick<LoggerOptions, 'transport'> {
  if (!prettyLogs(config)) return {};
  return {
    transport: {
      target: 'pino-pretty',
      options: {
        colorize: true,
        translateTime: 'SYS:HH:MM:ss',
        ignore: 'pid,hostname,context',
        messageFormat: '{if context}[{context}] {end}{msg}',
      },
    },
  };
}

/**
 * Nest's logger interface on a pino logger: what logs before the application exists (the embedded PostgreSQL,
 * migrations) goes through `LOG_LEVEL` and the same format as everything after. `Logger.overrideLogger(...)`.
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly pino: Logger) {}

  static create(config: Pick<AppConfig, 'nodeEnv' | 'logLevel'>): PinoNestLogger {
    return new PinoNestLogger(pino({ level: config.logLevel, ...logFormat(config) }));
  }

  private write(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', message: unknown, params: unknown[]) {
    const context = typeof params[params.length - 1] === 'string' ? (params[params.length - 1] as string) : undefined;
    if (message instanceof Error) this.pino[level]({ context, err: message }, message.message);
    else if (typeof message === 'object' && message !== null) this.pino[level]({ context, ...message });
    else this.pino[level]({ context }, String(message));
  }

  log(message: unknown, ...params: unknown[]) {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]) {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]) {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]) {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]) {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]) {
    this.write('fatal', message, params);
  }
}
