// Admission control in this intake process: rate limits and waiting rooms for the guarded routes, the rooms'
// WebSockets, and a bid for the admission leader's lease. Its Redis traffic runs on connections of its own, so
// the request connection's count stays the requests' round trips; none of it is on the request path.

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { AdmissionKeys, AdmissionLeader, type AdmissionTokens, ThrottledWarning } from "@floodgate/admission";
import type { Config } from "@floodgate/config";
import {
  createRedis,
  createSubscriber,
  type ScriptedRedis,
  waitForRedis,
} from "@floodgate/redis-connections";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { AdmissionControl } from "../admission/admission-control.ts";
import { AdmissionSigningKeys } from "../admission/admission-signing-keys.ts";
import { PassGrants } from "../admission/pass-grants.ts";
import { RateLimitBook } from "../admission/rate-limit-book.ts";
import { RoomDirectory } from "../admission/room-directory.ts";
import { RoomTrafficCounts } from "../admission/room-traffic-counts.ts";
import { type RoomEvent, TicketSockets } from "../admission/ticket-sockets.ts";
import { markRedisErrors } from "../errors/store-errors.ts";

declare module "fastify" {
  interface FastifyInstance {
    admission: {
      control: AdmissionControl;
      sockets: TicketSockets;
      directory: RoomDirectory;
      book: RateLimitBook;
      keys: AdmissionKeys;
      tokens: AdmissionTokens;
      /** Where the tokens' keys come from; the JWKS route publishes its public keys. */
      signingKeys: AdmissionSigningKeys;
      /** Grants a ticket's room pass before its token leaves (pass-grants.ts). */
      passes: PassGrants;
      leader: AdmissionLeader;
      /** The admission connection: room scripts, admin reads and writes. */
      redis: ScriptedRedis;
      /** Reloads rooms and limits now (after an admin change, before answering). */
      refresh(): Promise<void>;
    };
  }
}

const DIRECTORY_EVERY_MS = 250;
const LIMITS_EVERY_MS = 5000;

export const admissionPlugin = fp(async (app: FastifyInstance, { config }: { config: Config }) => {
  const redis = markRedisErrors(
    createRedis(config.redisUrl, { name: "floodgate-intake-admission", autoPipelining: true }),
  );
  const subscriber = createSubscriber(config.redisUrl, "floodgate-intake-admission-events");
  for (const connection of [redis, subscriber]) {
    connection.on("error", (error) =>
      app.log.warn({ err: error.message }, "admission redis connection error"),
    );
  }
  const keys = new AdmissionKeys(app.queueKeys);
  const signingKeys = new AdmissionSigningKeys(config, app.globalDb, app.log);
  // Before the first request: a process that cannot sign would answer its first admissions with 500s.
  await signingKeys.start();
  const tokens = signingKeys.tokens;
  const book = new RateLimitBook(config.rateLimits);
  const directory = new RoomDirectory();
  const metrics = app.metrics.admission;
  const passes = new PassGrants(redis, keys, tokens);
  const traffic = new RoomTrafficCounts(redis, keys);
  const control = new AdmissionControl({
    config,
    keys,
    tokens,
    book,
    directory,
    metrics,
    requestRedis: app.redis,
    admissionRedis: redis,
    parallelCommands: app.metrics.redisParallelCommands,
    traffic,
  });
  const sockets = new TicketSockets({ redis, keys, directory, metrics, passes, log: app.log });
  const leader = new AdmissionLeader({
    redis,
    keys,
    queueKeys: app.queueKeys,
    instanceId: `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`,
    backpressureSeconds: config.backpressureSeconds,
    cooldownMs: config.roomCooldownSeconds * 1000,
    log: app.log,
    onTick: (tick) => {
      if (tick.admitted > 0) metrics.roomAdmitted.inc({ room: tick.roomId }, tick.admitted);
    },
    onBacklog: (reading, backpressure) => {
      metrics.backpressure.set(backpressure ? 1 : 0);
      const drain = reading.drainSeconds;
      metrics.backlogDrainSeconds.set(drain !== null && Number.isFinite(drain) ? drain : -1);
    },
  });

  const refreshDirectory = async () => {
    await directory.refresh(redis, keys);
    for (const { definition, stats } of directory.rooms()) {
      const room = definition.roomId;
      metrics.roomWaiting.set({ room }, stats.waiting);
      metrics.roomQueueing.set({ room }, stats.queueing ? 1 : 0);
      metrics.roomAbandoned.set({ room }, stats.abandonedTotal);
      metrics.roomAdmitRate.set({ room }, stats.measuredAdmitRate);
    }
  };
  const refresh = async () => {
    await Promise.all([refreshDirectory(), book.reload(redis, keys)]);
  };
  const timers: NodeJS.Timeout[] = [];
  const warnings = new ThrottledWarning();
  const every = (ms: number, work: () => Promise<void>, what: string) => {
    let running = false;
    timers.push(
      setInterval(async () => {
        if (running) return;
        running = true;
        try {
          await work();
        } catch (error) {
          warnings.warn(what, (heldBack) =>
            app.log.warn(
              { err: (error as Error).message, similarSinceLast: heldBack },
              `admission: ${what} not refreshed (this process keeps what it last knew)`,
            ),
          );
        } finally {
          running = false;
        }
      }, ms),
    );
  };

  // Like the request connection: give Redis a moment at start, then serve (and answer 503) while it is away.
  await waitForRedis(redis, 5000).catch(() => app.log.warn("admission: redis not ready yet"));
  app.decorate("admission", {
    control,
    sockets,
    directory,
    book,
    keys,
    tokens,
    signingKeys,
    passes,
    leader,
    redis,
    refresh,
  });

  app.addHook("onReady", async () => {
    // The redis plugin already gave Redis its moment; while it is away, rooms and limits load once it is back.
    if (redis.status === "ready") {
      await refresh().catch((error: Error) =>
        app.log.warn({ err: error.message }, "admission: first load failed"),
      );
    }
    subscriber.on("message", (channel, message) => {
      if (channel === keys.roomEventsChannel()) {
        try {
          sockets.onRoomEvent(JSON.parse(message) as RoomEvent);
        } catch (error) {
          app.log.warn({ err: (error as Error).message }, "admission: unreadable room event");
        }
      } else if (channel === keys.configChannel()) {
        void refresh().catch((error: Error) =>
          app.log.warn({ err: error.message }, "admission: reload failed"),
        );
      }
    });
    // Not awaited: while Redis is away the SUBSCRIBE waits in the offline queue, and the intake must not.
    subscriber
      .subscribe(keys.roomEventsChannel(), keys.configChannel())
      .catch((error: Error) => app.log.warn({ err: error.message }, "admission: cannot subscribe"));
    every(DIRECTORY_EVERY_MS, refreshDirectory, "rooms");
    every(LIMITS_EVERY_MS, () => book.reload(redis, keys), "rate limits");
    sockets.start();
    traffic.start((error) =>
      warnings.warn("traffic", (heldBack) =>
        app.log.warn(
          { err: error.message, similarSinceLast: heldBack },
          "admission: guarded traffic not counted in its room (auto rooms see less)",
        ),
      ),
    );
    leader.start();
  });

  app.addHook("onClose", async () => {
    for (const timer of timers) clearInterval(timer);
    signingKeys.stop();
    sockets.stop();
    await traffic.stop();
    await leader.stop();
    subscriber.disconnect();
    await redis.quit().catch(() => redis.disconnect());
  });
});
