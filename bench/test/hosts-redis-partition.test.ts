// Issue 35's short partition case: Redis on a host of its own (a network namespace), the intake and a worker
// reaching it over a bridge, shop clients paying and retrying with the same Idempotency-Key; Redis's host is cut
// off at the packet level (no RST, the kernel retransmits) for a few seconds, then healed. Afterwards every
// payment answered 202 is applied exactly once and the wallets add up. A machine that cannot make namespaces
// fails this file with what it lacks.
import {
  configToEnv,
  createTestEnvironment,
  freePort,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditFault } from "../src/faults/fault-audit.ts";
import { type NamespacedRedis, startNamespacedRedis } from "../src/faults/hosts/namespaced-redis.ts";
import { type TestHost, TestNetwork } from "../src/faults/hosts/test-network.ts";
import { LedgerReads } from "../src/faults/ledger-reads.ts";
import { ShopClient } from "../src/faults/shop-client.ts";
import { TokenIdentity } from "../src/harness/bench-identity.ts";
import { type RunningService, startService } from "../src/harness/child-service.ts";
import { KeepAliveClient } from "../src/harness/keep-alive-client.ts";
import { benchUserId } from "../src/harness/payment-requests.ts";

const USERS = 10;
const FUNDING = 10_000_000_000;
const RATE = 40;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let network: TestNetwork;
let redisHost: TestHost;
let redis: NamespacedRedis;
let env: TestEnvironment;
let intake: RunningService;
let worker: WorkerProcess;
let ledger: LedgerReads;
let identity: TokenIdentity;

beforeAll(async () => {
  network = TestNetwork.create();
  redisHost = network.addHost("redis");
  redis = await startNamespacedRedis(redisHost);
  env = await createTestEnvironment("hostspartition", { env: { REDIS_URL: redis.url } });
  intake = await startIntake();
  worker = await startWorkerProcess(env.config);
  ledger = new LedgerReads(env.config.shardUrls);
  identity = new TokenIdentity(intake.baseUrl, env.serverKey);
  await fundShoppers();
  // Five databases migrated, two processes started, wallets funded: on two cores shared by the suite's other
  // files this can outlast the default hook timeout.
}, 240_000);

afterAll(async () => {
  await Promise.all([intake?.stop(), worker?.kill(), ledger?.close(), redis?.stop()]);
  network?.close();
  await env?.cleanup();
});

/** The intake, given as long as a busy machine needs to start it (the fixture's 20 s is too short when the
 * suite's files start theirs at once on two cores); ready when /healthz answers. */
async function startIntake(): Promise<RunningService> {
  const port = await freePort();
  return startService({
    name: "intake",
    script: "apps/intake/src/server.ts",
    env: { ...configToEnv(env.config), HOST: "127.0.0.1", PORT: String(port) },
    port,
    readyPath: "/healthz",
    readyTimeoutMs: 90_000,
    logFile: "/dev/null",
  });
}

async function fundShoppers(): Promise<void> {
  const userIds = Array.from({ length: USERS }, (_, i) => benchUserId(i));
  const client = new KeepAliveClient(intake.baseUrl, 4);
  try {
    for (const userId of userIds) {
      const answer = await client.send(
        "POST",
        `/v1/wallets/${userId}/deposits`,
        { amount: FUNDING },
        { ...identity.serverHeaders(), "idempotency-key": `fund-${userId}` },
      );
      expect(answer.status, answer.body).toBe(202);
    }
  } finally {
    client.close();
  }
  for (let i = 0; (await ledger.walletInvariant()).deposits < USERS * FUNDING; i++) {
    if (i > 300) throw new Error("the deposits were not applied within 30 s");
    await sleep(100);
  }
  await identity.addShoppers(userIds);
}

/** Waits until `accepted` payments are applied (or 45 s went by): a worker may need a while after the heal. */
async function applied(accepted: number): Promise<number> {
  let count = 0;
  for (let i = 0; i < 90; i++) {
    count = await ledger.appliedSince(1);
    if (count >= accepted) break;
    await sleep(500);
  }
  return count;
}

describe("Redis's host partitioned from the intake and the worker", () => {
  it("keeps every 202 applied exactly once after the partition heals", async () => {
    const client = new ShopClient({
      baseUrl: intake.baseUrl,
      identity,
      users: USERS,
      keyPrefix: `hosts-partition-${process.pid}`,
      firstSeq: 1,
      connections: 8,
    });
    client.pace(RATE);
    await sleep(2000);
    const before = client.acceptedKeys;
    network.partition(redisHost);
    await sleep(4000);
    const duringPartition = client.counts.attempts;
    network.heal(redisHost);
    await sleep(4000);
    await client.stop();

    await applied(client.acceptedKeys);
    const rows = await ledger.paymentRows(1, client.nextSeq - 1);
    const audit = auditFault(client.records, rows);
    const wallets = await ledger.walletInvariant();

    // The partition was real: the clients had to retry, and payments were accepted before and after it.
    expect(before).toBeGreaterThan(0);
    expect(duringPartition).toBeGreaterThan(0);
    expect(client.counts.attempts).toBeGreaterThan(client.counts.keys);
    expect(audit.accepted).toBeGreaterThan(before);
    expect(audit.examples).toEqual({ lost: [], appliedTwice: [] });
    expect(audit).toMatchObject({ lost: 0, appliedTwice: 0, keysWithTwoIds: 0, foreignRows: 0 });
    expect(wallets.difference).toBe(0);
  });
});
