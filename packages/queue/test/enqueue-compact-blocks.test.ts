// One enqueue script call mixes full blocks (a request a waiting room guards) and compact ones (no room: the
// user's bucket alone, enqueue-operations-n.lua). Against the real Redis: each request answered as it would be
// alone, in order, and only the accepted ones written; a layout that does not add up refused before anything runs.

import { encodeMessageBody, type MoneyOperationMessage } from "@floodgate/domain";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { type EnqueueOperationInput, enqueueOperations } from "@floodgate/redis-scripts";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type AdmissionCheck, QueueKeys, unlimitedAdmission } from "../src/index.ts";
import { paymentMessage } from "./payment-messages.ts";

let env: TestEnvironment;
let redis: ScriptedRedis;
let keys: QueueKeys;
let n = 0;

beforeAll(async () => {
  env = await createTestEnvironment("enqueue-compact-blocks", { shards: 1 });
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
});

afterAll(async () => {
  await redis?.quit();
  await env?.cleanup();
});

beforeEach(() => {
  // One partition: every request of the call in one slot, as the intake gathers them on a cluster.
  keys = new QueueKeys(`${env.config.redisPrefix}c${n++}:`, 1);
});

const payment = (userId: string, key?: string): MoneyOperationMessage =>
  paymentMessage(userId, { bucket: 7, ...(key === undefined ? {} : { key }) });

const input = (
  message: MoneyOperationMessage,
  admission: AdmissionCheck,
  options: { key?: string; fingerprint?: string } = {},
): EnqueueOperationInput => ({
  admission,
  idempotencyKey: keys.idempotency(0, message.userId, options.key ?? ""),
  statusKey: keys.status(0, message.id),
  streamKey: keys.stream(0),
  operationId: message.id,
  fingerprint: options.fingerprint ?? "fp-1",
  idempotencyTtlSeconds: options.key === undefined ? 0 : 86_400,
  encodedMessage: encodeMessageBody(message),
});

const userBucket = (userId: string) => `${keys.prefix}{p0}:rl:payments:u:${userId}`;

/** No room: a user bucket of `burst` tokens, one more a minute. */
const limited = (userId: string, burst: number): AdmissionCheck => ({
  keys: [userBucket(userId), keys.stream(0), keys.stream(0)],
  args: [60_000, burst, "0", userId, "", "", "0"],
});

/** A session room: its queueing mirror and the user's passes, in the user's slot; no token presented. */
const roomGuarded = (userId: string, roomId: string): AdmissionCheck => ({
  keys: [
    userBucket(userId),
    `${keys.prefix}{p0}:gate:${roomId}`,
    `${keys.prefix}{p0}:pass:${roomId}:${userId}`,
  ],
  args: [0, 0, "1", userId, "", "", "0"],
});

describe("compact blocks beside full ones in one enqueue call", () => {
  it("answers each request as alone, in order, and writes only the accepted", async () => {
    await redis.set(`${keys.prefix}{p0}:gate:queueing-room`, "1");
    const queued = payment("room-user");
    const roomQuiet = payment("quiet-user");
    const first = payment("keyed-user", "K1");
    const replay = payment("keyed-user", "K1");
    const conflict = payment("keyed-user", "K1");
    const limitedFirst = payment("limited-user");
    const limitedSecond = payment("limited-user");
    const requests = [
      input(queued, roomGuarded("room-user", "queueing-room")),
      input(first, unlimitedAdmission(keys, "keyed-user"), { key: "K1" }),
      // A room that does not queue lets it through: a full block accepted between compact ones.
      input(roomQuiet, roomGuarded("quiet-user", "quiet-room")),
      input(limitedFirst, limited("limited-user", 1)),
      input(limitedSecond, limited("limited-user", 1)),
      input(replay, unlimitedAdmission(keys, "keyed-user"), { key: "K1" }),
      input(conflict, unlimitedAdmission(keys, "keyed-user"), { key: "K1", fingerprint: "fp-other" }),
    ];

    const argv = enqueueOperations.argv(requests);
    // The number of keys, then the keys, then the layout first among the arguments.
    const keyCount = 6 * 2 + 4 * 5;
    expect(argv[0]).toBe(keyCount);
    expect(argv[1 + keyCount]).toBe("fcfcccc");
    expect(argv).toHaveLength(1 + keyCount + 1 + 11 * 2 + 6 * 5);

    const answers = await enqueueOperations.run(redis, requests);
    expect(answers).toHaveLength(requests.length);
    expect(answers[0]).toMatchObject({ code: -91, value: "no_token" });
    expect(answers[1]).toMatchObject({ code: 1, value: first.id, admission: "-1,0" });
    expect(answers[2]).toMatchObject({ code: 1, value: roomQuiet.id, admission: "-1,0" });
    expect(answers[3]).toMatchObject({ code: 1, value: limitedFirst.id, admission: "0,60000" });
    const refusedAnswer = answers[4]!;
    if (refusedAnswer instanceof Error) throw refusedAnswer;
    expect(refusedAnswer.code).toBe(-90);
    expect(refusedAnswer.value).toMatch(/^user,\d+$/);
    expect(Number(refusedAnswer.value.split(",")[1])).toBeGreaterThan(0);
    expect(answers[5]).toMatchObject({ code: 0, value: first.id, admission: "-1,0" });
    expect(answers[6]).toMatchObject({ code: -1, value: first.id });

    const accepted = [first, roomQuiet, limitedFirst];
    const entries = await redis.xrange(keys.stream(0), "-", "+");
    expect(entries.map(([, fields]) => fields[1])).toEqual(accepted.map((message) => message.id));
    for (const message of accepted) {
      expect(await redis.hget(keys.status(0, message.id), "status")).toBe("pending");
    }
    for (const message of [queued, limitedSecond]) {
      expect(await redis.exists(keys.status(0, message.id))).toBe(0);
    }
    // The replay and the conflict name the key's record, the first's status hash (their ids share its tail), and
    // leave it as the first wrote it.
    expect(keys.status(0, replay.id)).toBe(keys.status(0, first.id));
    expect(keys.status(0, conflict.id)).toBe(keys.status(0, first.id));
    expect(await redis.hgetall(keys.status(0, first.id))).toEqual({
      status: "pending",
      id: first.id,
      message: encodeMessageBody(first),
      fp: "fp-1",
    });
    // The compact request took its user's token; the refused one took none.
    expect(await redis.pttl(userBucket("limited-user"))).toBeGreaterThan(0);
    expect(await redis.exists(userBucket("room-user"))).toBe(0);
  });

  it("refuses a call whose layout does not add up to its keys and arguments, and runs none of it", async () => {
    const message = payment("layout-user");
    const [, ...rest] = enqueueOperations.argv([input(message, unlimitedAdmission(keys, "layout-user"))]);
    const keyCount = 4;
    const keysAndArgs = rest as string[];
    const wrongLayout = [...keysAndArgs.slice(0, keyCount), "f", ...keysAndArgs.slice(keyCount + 1)];
    const raw = redis as unknown as Record<string, (...argv: unknown[]) => Promise<unknown>>;
    await expect(raw.enqueueOperations!(keyCount, ...wrongLayout)).rejects.toThrow(
      /enqueue-operations-n: 4 keys and 7 arguments are not what layout "f" takes/,
    );
    const unknownBlock = [...keysAndArgs.slice(0, keyCount), "x", ...keysAndArgs.slice(keyCount + 1)];
    await expect(raw.enqueueOperations!(keyCount, ...unknownBlock)).rejects.toThrow(/layout "x"/);
    expect(await redis.exists(keys.status(0, message.id))).toBe(0);
    expect(await redis.xlen(keys.stream(0))).toBe(0);
  });
});
