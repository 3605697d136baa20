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

/** pino-pretty's options for a developer's terminal. */
export const PRETTY_OPTIONS = {
  colorize: true,
  translateTime: 'SYS:HH:MM:ss',
  // One line per request on a terminal: the method, path, status and time, not the request's 40 lines of headers
  // (the JSON lines keep them, redacted).
  ignore: 'pid,hostname,context,reqId,req,res,responseTime',
  messageFormat:
    '{if context}[{context}] {end}{msg}{if req.method} {req.method} {req.url} {res.statusCode} {responseTime} ms{end}',
};

/** pino options for the log format of `prettyLogs` (a pino-pretty transport, or plain JSON to stdout). */
export function logFormat(config: Pick<AppConfig, 'nodeEnv'>): Pick<LoggerOptions, 'transport'> {
  if (!prettyLogs(config)) return {};
  return { transport: { target: 'pino-pretty', options: PRETTY_OPTIONS } };
}

/** Nest's own start-up lines (one per module and one per route, about 130): logged at debug, not info. */
const NEST_BOOT_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'WebSocketsController',
  'NestApplication',
]);

/** Whether a Nest log call's last parameter names one of Nest's start-up contexts. */
export function isNestBootLine(params: unknown[]): boolean {
  const context = params[params.length - 1];
  return typeof context === 'string' && NEST_BOOT_CONTEXTS.has(context);
}

/**
 * The application's logger with Nest's start-up lines moved to debug (`LOG_LEVEL=debug` shows them): what a newcomer
 * needs at start (the address, the admin password, the demo's codes) is no longer under 130 lines of modules and
 * routes.
 */
export class QuietBootLogger implements LoggerService {
  constructor(private readonly inner: LoggerService) {}

  log(message: unknown, ...params: unknown[]) {
    if (isNestBootLine(params) && this.inner.debug) this.inner.debug(message, ...params);
    else this.inner.log(message, ...params);
  }
  error(message: unknown, ...params: unknown[]) {
    this.inner.error(message, ...params);
  }
  warn(message: unknown, ...params: unknown[]) {
    this.inner.warn(message, ...params);
  }
  debug(message: unknown, ...params: unknown[]) {
    this.inner.debug?.(message, ...params);
  }
  verbose(message: unknown, ...params: unknown[]) {
    this.inner.verbose?.(message, ...params);
  }
  fatal(message: unknown, ...params: unknown[]) {
    this.inner.fatal?.(message, ...params);
  }
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
    this.write(isNestBootLine(params) ? 'debug' : 'info', message, params);
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
