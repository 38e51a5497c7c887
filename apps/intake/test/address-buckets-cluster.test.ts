// The guarded enqueue path on a real Redis Cluster (3 masters, 3 replicas, private ports): the intake's
// admission control around packages/queue's enqueueOperation, with the client address's token beside it. A
// route no room guards touches only its user's partition slot (a cluster refuses a script across slots), the
// address's bucket is a slot of its own, and limits, replays and refusals behave as on one Redis.
import { AdmissionKeys, Hs256AdmissionTokens } from "@floodgate/admission";
import { type Config, loadConfig } from "@floodgate/config";
import { type MoneyOperationMessage, newOperationId } from "@floodgate/domain";
import { createAdmissionMetrics, Registry } from "@floodgate/metrics";
import {
  type AdmissionCheck,
  type EnqueueOutcome,
  enqueueOperation,
  idempotentTailOf,
  QueueKeys,
  unlimitedAdmission,
} from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { bucketForUser } from "@floodgate/shard-router";
import { type RedisCluster, startRedisCluster } from "@floodgate/test-fixtures";
import type { FastifyRequest } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdmissionControl } from "../src/admission/admission-control.ts";
import { RateLimitBook } from "../src/admission/rate-limit-book.ts";
import { RoomDirectory } from "../src/admission/room-directory.ts";
import { RoomTrafficCounts } from "../src/admission/room-traffic-counts.ts";
import { ProblemError } from "../src/errors/error-catalogue.ts";

let cluster: RedisCluster;
let config: Config;
let redis: ScriptedRedis;
let queueKeys: QueueKeys;
let keys: AdmissionKeys;
/** Address tokens sent beside a script (the request connection's counter in the intake). */
let parallelCommands = 0;

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
  config = loadConfig({
    REDIS_URL: cluster.url,
    REDIS_PREFIX: "fgc:",
    // Per minute, so no token comes back while the file runs.
    RATE_LIMITS: "*.ip=off,payments.user=1/m:2,payments.ip=1/m:3",
  });
  redis = createRedis(config.redisUrl, { autoPipelining: true, name: "address-buckets-cluster" });
  await waitForRedis(redis);
  queueKeys = new QueueKeys(config.redisPrefix, config.streamPartitions);
  keys = new AdmissionKeys(queueKeys);
});

afterAll(async () => {
  redis?.disconnect();
  await cluster?.stop();
});

/** One intake process's admission control (its own view of every address's bucket). */
function intakeProcess(): { control: AdmissionControl; registry: Registry } {
  const registry = new Registry();
  const control = new AdmissionControl({
    config,
    keys,
    tokens: new Hs256AdmissionTokens("a-secret-of-at-least-32-characters-for-tests"),
    book: new RateLimitBook(config.rateLimits),
    directory: new RoomDirectory(),
    metrics: createAdmissionMetrics(registry),
    requestRedis: redis,
    admissionRedis: redis,
    parallelCommands: { inc: () => parallelCommands++ },
    traffic: new RoomTrafficCounts(redis, keys),
  });
  return { control, registry };
}

const fromAddress = (ip: string) => ({ ip, headers: {} }) as unknown as FastifyRequest;

/** A payment as the intake mints it: with a key, its id ends in the key's tail (enqueue-operation.ts). */
function payment(userId: string, idempotencyKey?: string): MoneyOperationMessage {
  const createdAt = Date.now();
  const tail = idempotencyKey === undefined ? undefined : idempotentTailOf("payment", userId, idempotencyKey);
  return {
    v: 1,
    kind: "payment",
    id: newOperationId("payment", bucketForUser(userId), createdAt, tail),
    userId,
    amount: 100,
    currency: config.currency,
    createdAt,
  };
}

function pay(
  control: AdmissionControl,
  ip: string,
  userId: string,
  options: { message?: MoneyOperationMessage; idempotencyKey?: string } = {},
): Promise<EnqueueOutcome> {
  return control.admit(fromAddress(ip), "payments", userId, (admission) =>
    enqueueOperation(redis, queueKeys, {
      message: options.message ?? payment(userId),
      fingerprint: `pay:${userId}:100`,
      ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
      idempotencyTtlSeconds: 60,
      admission,
    }),
  );
}

/** Users whose partitions cover every master. */
async function usersOnEveryMaster(): Promise<string[]> {
  const masterOf = async (key: string) => {
    const slot = (await redis.cluster("KEYSLOT", key)) as number;
    const ranges = await redis.cluster("SLOTS");
    return ranges.find(([from, to]) => slot >= from && slot <= to)?.[2]?.[1];
  };
  const byMaster = new Map<number, string>();
  for (let i = 0; byMaster.size < cluster.masters.length && i < 200; i++) {
    const userId = `cluster-user-${i}`;
    const master = await masterOf(queueKeys.stream(queueKeys.partitionForUser(userId)));
    if (master !== undefined && !byMaster.has(master)) byMaster.set(master, userId);
  }
  expect(byMaster.size).toBe(cluster.masters.length);
  return [...byMaster.values()];
}

const streamLength = (userId: string) => redis.xlen(queueKeys.stream(queueKeys.partitionForUser(userId)));

describe("the guarded enqueue path on a Redis Cluster", () => {
  it("would be refused if a script's keys spanned slots (what this layout avoids)", async () => {
    // The old gate's layout: the address's bucket among the user's keys.
    const { keys: userKeys, args } = unlimitedAdmission(queueKeys, "crossing-user");
    const crossing: AdmissionCheck = {
      keys: [keys.ipBucket("payments", "192.0.2.1"), userKeys[1], userKeys[2]],
      args,
    };
    await expect(
      enqueueOperation(redis, queueKeys, {
        message: payment("crossing-user"),
        fingerprint: "f",
        idempotencyTtlSeconds: 60,
        admission: crossing,
      }),
    ).rejects.toThrow(/CROSSSLOT|should belong to the same slot/); // Redis', or the client's own check
  });

  it("accepts users of partitions on every master, the address's token taken beside each", async () => {
    const { control } = intakeProcess();
    const users = await usersOnEveryMaster();
    for (const [i, userId] of users.entries()) {
      const before = await streamLength(userId);
      const outcome = await pay(control, `198.51.100.${i + 1}`, userId);
      expect(outcome).toMatchObject({
        result: "accepted",
        admission: { user: { remaining: 1 }, ip: { remaining: 2 } },
      });
      expect(await streamLength(userId)).toBe(before + 1);
      // The address's token was taken in its own slot.
      expect(Number(await redis.pttl(keys.ipBucket("payments", `198.51.100.${i + 1}`)))).toBeGreaterThan(0);
    }
  });

  it("replays an Idempotency-Key's first answer, storing nothing new", async () => {
    const { control } = intakeProcess();
    const [userId] = await usersOnEveryMaster();
    const message = payment(`${userId}-replay`, "k-1");
    const before = await streamLength(message.userId);
    const first = await pay(control, "198.51.100.50", message.userId, { message, idempotencyKey: "k-1" });
    const again = await pay(control, "198.51.100.50", message.userId, {
      message: payment(message.userId, "k-1"),
      idempotencyKey: "k-1",
    });
    expect(first).toMatchObject({ result: "accepted", id: message.id });
    expect(again).toMatchObject({ result: "replayed", id: message.id });
    expect(await streamLength(message.userId)).toBe(before + 1);
  });

  it("refuses an address over its limit (429, nothing stored); another process overshoots by its view at most", async () => {
    const first = intakeProcess();
    const users = await usersOnEveryMaster();
    const ip = "203.0.113.7";
    // The address's burst is 3: one payment from each of three users in different partitions, then a fourth.
    for (const userId of users.slice(0, 3))
      expect((await pay(first.control, ip, userId)).result).toBe("accepted");
    const lengths = await Promise.all(users.map(streamLength));
    const refused = await pay(first.control, ip, `${users[0]}-more`).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ProblemError);
    expect(refused).toMatchObject({ code: "rate_limited", extras: { field: "client address" } });
    expect((refused as ProblemError).extras.retryAfterSeconds).toBeGreaterThan(0);
    expect(await Promise.all(users.map(streamLength))).toEqual(lengths);

    // A second process has not seen the address: its one request goes out, the script accepts it while the
    // bucket is empty (an accepted request is never undone), and it is counted as an overshoot.
    const second = intakeProcess();
    const late = await pay(second.control, ip, `${users[1]}-late`);
    expect(late).toMatchObject({ result: "accepted", admission: { ip: { remaining: 0 } } });
    expect(await second.registry.getSingleMetricAsString("floodgate_rate_limit_overshoot_total")).toContain(
      'floodgate_rate_limit_overshoot_total{route_class="payments"} 1',
    );
    // From then on it refuses the address too, without Redis.
    await expect(pay(second.control, ip, `${users[2]}-late`)).rejects.toMatchObject({ code: "rate_limited" });
  });
});
