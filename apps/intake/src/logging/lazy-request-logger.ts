// Fastify's childLoggerFactory: request.log is a stand-in that makes the pino child (with its reqId binding)
// the first time the request logs, not for every request. With per-request logging off almost no request
// logs anything, and making a child (its bindings serialised, its prototype chain set up) was about 1 % of the
// intake's CPU under wrk. A request that does log writes the same line as before: the child is made from the
// same parent, bindings and options Fastify would have used.
import type { FastifyBaseLogger, FastifyLogFn, FastifyServerOptions } from "fastify";

type Bindings = Parameters<FastifyBaseLogger["child"]>[0];
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger["child"]>[1]>;
type Level = "fatal" | "error" | "warn" | "info" | "debug" | "trace";
type LogArgs = Parameters<FastifyLogFn>;

class LazyRequestLogger implements FastifyBaseLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get #logger(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }

  /** What the child's level would be: its own once made, else the route's level or the parent's. */
  get level(): FastifyBaseLogger["level"] {
    return this.#child?.level ?? this.#options.level ?? this.#parent.level;
  }

  set level(level: FastifyBaseLogger["level"]) {
    this.#logger.level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger.child(bindings, options);
  }

  fatal(...args: LogArgs): void {
    this.#write("fatal", args);
  }

  error(...args: LogArgs): void {
    this.#write("error", args);
  }

  warn(...args: LogArgs): void {
    this.#write("warn", args);
  }

  info(...args: LogArgs): void {
    this.#write("info", args);
  }

  debug(...args: LogArgs): void {
    this.#write("debug", args);
  }

  trace(...args: LogArgs): void {
    this.#write("trace", args);
  }

  silent(): void {}

  #write(level: Level, args: LogArgs): void {
    const logger = this.#logger;
    // pino's log functions are overloaded; the arguments are passed on exactly as the caller gave them.
    (logger[level] as (...args: unknown[]) => void).apply(logger, args);
  }
}

export const lazyRequestLogger: NonNullable<FastifyServerOptions["childLoggerFactory"]> = (
  logger,
  bindings,
  options,
) => new LazyRequestLogger(logger, bindings, options);
