// The enabled webhook endpoints, read from the global database once a second (configuration, not the hot
// path), so a batch knows without a query which event types anyone wants (outbox-writer.ts) and the relay
// which endpoints to deliver each event to. An endpoint created, changed or disabled is seen within a second.
import type { GlobalDatabase } from "@floodgate/db";
import type { Kysely } from "kysely";
import type { Logger } from "pino";

export const SUBSCRIPTIONS_REFRESH_MS = 1000;

export interface SubscribedEndpoint {
  id: string;
  events: ReadonlySet<string>;
}

export class WebhookSubscriptions {
  readonly #db: Kysely<GlobalDatabase>;
  readonly #log: Logger;
  #endpoints: SubscribedEndpoint[] = [];
  #types: ReadonlySet<string> = new Set();
  #timer: NodeJS.Timeout | undefined;
  #failing = false;
  #stopped = false;

  constructor(db: Kysely<GlobalDatabase>, log: Logger) {
    this.#db = db;
    this.#log = log;
  }

  /** Event types at least one enabled endpoint subscribes to. */
  get types(): ReadonlySet<string> {
    return this.#types;
  }

  endpointsFor(type: string): SubscribedEndpoint[] {
    return this.#endpoints.filter((endpoint) => endpoint.events.has(type));
  }

  /** The first read before the worker consumes (so a running deployment's events are not skipped), then a timer. */
  async start(): Promise<void> {
    await this.refresh();
    const tick = () => {
      if (this.#stopped) return;
      this.#timer = setTimeout(() => void this.refresh().finally(tick), SUBSCRIPTIONS_REFRESH_MS);
    };
    tick();
  }

  async refresh(): Promise<void> {
    try {
      const rows = await this.#db
        .selectFrom("webhook_endpoints")
        .select(["id", "events"])
        .where("enabled", "=", true)
        .execute();
      this.#endpoints = rows.map((row) => ({ id: row.id, events: new Set(row.events) }));
      this.#types = new Set(rows.flatMap((row) => row.events));
      if (this.#failing) this.#log.info("webhook endpoints read again");
      this.#failing = false;
    } catch (error) {
      // The last list stays in use: events go on being written for the endpoints known.
      if (!this.#failing) {
        this.#log.warn(
          { err: (error as Error).message },
          "could not read the webhook endpoints; keeping the last list",
        );
      }
      this.#failing = true;
    }
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }
}
