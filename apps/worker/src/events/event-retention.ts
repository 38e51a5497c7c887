// The events feed's housekeeping: each worker deletes, on every shard, the events older than
// EVENT_RETENTION_DAYS, at start and then hourly. In batches of DELETE_BATCH rows, each its own short
// statement (no long lock, no long transaction holding back the feed's horizon, event-feed-query.ts in the
// intake); rows another worker is deleting at the same moment are skipped, not waited for. Off the hot path:
// its own pool of one connection per shard, idle between passes.
import type { Config } from "@floodgate/config";
import { createKysely, type ShardDatabase } from "@floodgate/db";
import { type Kysely, sql } from "kysely";
import type { Logger } from "pino";

export const DELETE_BATCH = 1000;
const RETENTION_EVERY_MS = 3_600_000;

/** Deletes one shard's events older than `days` days, batch after batch; returns how many. */
export async function deleteExpiredEvents(
  db: Kysely<ShardDatabase>,
  days: number,
  batch = DELETE_BATCH,
  stopping: () => boolean = () => false,
): Promise<number> {
  let deleted = 0;
  for (;;) {
    const result = await sql`
      delete from events where event_id in (
        select event_id from events where created_at < now() - make_interval(days => ${days})
        order by created_at limit ${batch} for update skip locked)`.execute(db);
    const count = Number(result.numAffectedRows ?? 0);
    deleted += count;
    if (count < batch || stopping()) return deleted;
  }
}

export class EventRetention {
  readonly #config: Config;
  readonly #log: Logger;
  readonly #shards: Kysely<ShardDatabase>[];
  #timer: NodeJS.Timeout | undefined;
  #pass: Promise<void> | undefined;
  #stopping = false;

  constructor(config: Config, log: Logger) {
    this.#config = config;
    this.#log = log;
    this.#shards = config.shardUrls.map((url, i) =>
      createKysely<ShardDatabase>(url, {
        max: 1,
        applicationName: `floodgate-worker-event-retention-shard-${i}`,
        timeouts: config.postgresTimeouts,
      }),
    );
  }

  start(): void {
    const tick = () => {
      this.#pass = this.#run().finally(() => {
        if (!this.#stopping) this.#timer = setTimeout(tick, RETENTION_EVERY_MS);
      });
    };
    tick();
  }

  async #run(): Promise<void> {
    for (const [shard, db] of this.#shards.entries()) {
      if (this.#stopping) return;
      try {
        const deleted = await deleteExpiredEvents(
          db,
          this.#config.eventRetentionDays,
          DELETE_BATCH,
          () => this.#stopping,
        );
        if (deleted > 0) this.#log.info({ shard, deleted }, "deleted events past their retention");
      } catch (error) {
        // The next pass deletes what this one left.
        this.#log.warn({ err: (error as Error).message, shard }, "could not delete expired events");
      }
    }
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#timer);
    await this.#pass;
    await Promise.all(this.#shards.map((db) => db.destroy()));
  }
}
