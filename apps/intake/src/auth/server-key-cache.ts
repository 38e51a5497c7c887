// Every active server key's hash, in this process's memory: verifying a key costs a map lookup and one
// SHA-256, never a Postgres query (the intake's budget is zero per request). Changes travel over Redis pub/sub:
// a key created or revoked on any intake process reaches every other within the publish's round trip, and a
// full reload from the global database runs at start, after every resubscription (messages sent while the
// subscription was down were not heard) and once a minute as a safety net.
import { type ActiveApiKey, activeApiKeys, apiKeyId, apiKeyMatches } from "@floodgate/auth";
import type { GlobalDatabase } from "@floodgate/db";
import { createSubscriber } from "@floodgate/redis-connections";
import type { FastifyBaseLogger } from "fastify";
import type { Cluster, Redis } from "ioredis";
import type { Kysely } from "kysely";

const RELOAD_EVERY_MS = 60_000;

type KeyChange = { op: "created"; id: string; hash: string } | { op: "revoked"; id: string };

export interface ServerKeyCacheDeps {
  db: Kysely<GlobalDatabase>;
  redisUrl: string;
  channel: string;
  log: FastifyBaseLogger;
}

export class ServerKeyCache {
  readonly #deps: ServerKeyCacheDeps;
  #keys = new Map<string, Buffer>();
  /**
   * Changes heard while a reload was reading (its snapshot may predate them): applied again, in order, over
   * the snapshot. Null when no reload runs.
   */
  #heardDuringReload: { id: string; hash: Buffer | null }[] | null = null;
  #reload: Promise<void> | undefined;
  #subscriber: Redis | Cluster | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(deps: ServerKeyCacheDeps) {
    this.#deps = deps;
  }

  async start(): Promise<void> {
    const { redisUrl, channel, log } = this.#deps;
    const subscriber = createSubscriber(redisUrl, "floodgate-intake-api-keys");
    this.#subscriber = subscriber;
    subscriber.on("error", (error) => log.warn({ err: error.message }, "api key subscriber error"));
    let subscribedBefore = false;
    subscriber.on("ready", () => {
      subscriber.subscribe(channel).then(
        () => {
          if (subscribedBefore) void this.reload();
          subscribedBefore = true;
        },
        (error: Error) => log.warn({ err: error.message }, "api keys: cannot subscribe"),
      );
    });
    subscriber.on("message", (from, message) => {
      if (from === channel) this.#apply(message);
    });
    await this.reload();
    this.#timer = setInterval(() => void this.reload(), RELOAD_EVERY_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#subscriber?.disconnect();
  }

  /** The key's id when it is active here, else null. */
  verify(key: string): string | null {
    const id = apiKeyId(key);
    if (id === null) return null;
    const hash = this.#keys.get(id);
    return hash !== undefined && apiKeyMatches(key, hash) ? id : null;
  }

  /** For the process that made the change: its own cache changes before the answer, not on the echo. */
  add(key: ActiveApiKey): void {
    this.#keys.set(key.id, key.hash);
    this.#heardDuringReload?.push({ id: key.id, hash: key.hash });
  }

  remove(id: string): void {
    this.#keys.delete(id);
    this.#heardDuringReload?.push({ id, hash: null });
  }

  /** One reload at a time: a caller during one waits for it. */
  reload(): Promise<void> {
    this.#reload ??= this.#readAll().finally(() => {
      this.#reload = undefined;
    });
    return this.#reload;
  }

  async #readAll(): Promise<void> {
    const heard: { id: string; hash: Buffer | null }[] = [];
    this.#heardDuringReload = heard;
    try {
      const keys = new Map((await activeApiKeys(this.#deps.db)).map((key) => [key.id, key.hash] as const));
      for (const change of heard) {
        if (change.hash === null) keys.delete(change.id);
        else keys.set(change.id, change.hash);
      }
      this.#keys = keys;
    } catch (error) {
      // Keep serving with the keys already known: a global database away must not log every shop out.
      this.#deps.log.warn(
        { err: (error as Error).message },
        "api keys: reload from the global database failed",
      );
    } finally {
      this.#heardDuringReload = null;
    }
  }

  get size(): number {
    return this.#keys.size;
  }

  #apply(message: string): void {
    try {
      const change = JSON.parse(message) as KeyChange;
      if (change.op === "created") this.add({ id: change.id, hash: Buffer.from(change.hash, "base64") });
      else if (change.op === "revoked") this.remove(change.id);
    } catch (error) {
      this.#deps.log.warn({ err: (error as Error).message }, "api keys: unreadable change message");
    }
  }
}

export const keyCreatedMessage = (key: ActiveApiKey): string =>
  JSON.stringify({ op: "created", id: key.id, hash: key.hash.toString("base64") } satisfies KeyChange);

export const keyRevokedMessage = (id: string): string =>
  JSON.stringify({ op: "revoked", id } satisfies KeyChange);
