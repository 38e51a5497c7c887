// One subscription to the status channel per intake process, whatever the number of operation sockets: the
// workers publish there after each commit (a JSON array of StatusChange, each naming an id whose view
// changed). After a reconnect the subscription is made again and the watchers re-read everything, since
// what was published while it was down was not heard.
import type { StatusChange } from "@floodgate/queue";
import { createSubscriber } from "@floodgate/redis-connections";
import type { FastifyBaseLogger } from "fastify";
import type { Cluster, Redis } from "ioredis";

const SUBSCRIBED_WITHIN_MS = 5000;

export interface StatusSubscriberDeps {
  redisUrl: string;
  channel: string;
  log: FastifyBaseLogger;
  onChanged(ids: string[]): void;
  onResubscribed(): void;
}

export class StatusSubscriber {
  readonly #deps: StatusSubscriberDeps;
  #redis: Redis | Cluster | undefined;
  #subscribed = false;
  #everSubscribed = false;
  readonly #waiting = new Set<(subscribed: boolean) => void>();

  constructor(deps: StatusSubscriberDeps) {
    this.#deps = deps;
  }

  start(): void {
    const { redisUrl, channel, log } = this.#deps;
    const redis = createSubscriber(redisUrl, "floodgate-intake-operation-status");
    this.#redis = redis;
    redis.on("error", (error) => log.warn({ err: error.message }, "operation status subscriber error"));
    redis.on("close", () => {
      this.#subscribed = false;
    });
    // On every (re)connection: SUBSCRIBE and wait for Redis to confirm it, so "subscribed" means it.
    redis.on("ready", () => {
      redis.subscribe(channel).then(
        () => this.#onSubscribed(),
        (error: Error) => log.warn({ err: error.message }, "operation status: cannot subscribe"),
      );
    });
    redis.on("message", (from, message) => {
      if (from !== channel) return;
      try {
        const changes = JSON.parse(message) as StatusChange[];
        this.#deps.onChanged(changes.map((change) => change.id));
      } catch (error) {
        log.warn({ err: (error as Error).message }, "operation status: unreadable change message");
      }
    });
  }

  stop(): void {
    this.#redis?.disconnect();
    for (const wake of this.#waiting) wake(false);
  }

  /** True once subscribed; false when the subscription is not there within a moment (Redis away). */
  whenSubscribed(): Promise<boolean> {
    if (this.#subscribed) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = (subscribed: boolean) => {
        clearTimeout(timer);
        this.#waiting.delete(wake);
        resolve(subscribed);
      };
      const timer = setTimeout(() => wake(false), SUBSCRIBED_WITHIN_MS);
      this.#waiting.add(wake);
    });
  }

  #onSubscribed(): void {
    this.#subscribed = true;
    for (const wake of this.#waiting) wake(true);
    if (this.#everSubscribed) this.#deps.onResubscribed();
    this.#everSubscribed = true;
  }
}
