// `./floodgate shards` and `shards add` as an operator runs them, against real intake and worker processes:
// the routing follows the map the global database records, a dry run changes nothing, and buckets move to a
// new shard while payments for their users flow, a worker is SIGKILLed and the mover itself is SIGKILLed and
// run again. Afterwards every payment is applied once, balances add up, reconcile passes and the moved
// buckets' rows and reads are on the new shard only.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Config } from "@floodgate/config";
import {
  bumpShardMapVersion,
  createKysely,
  dropDatabases,
  type GlobalDatabase,
  readShardMap,
  type ShardDatabase,
  writeShardMap,
} from "@floodgate/db";
import { CONSUMER_GROUP, QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { BUCKET_COUNT, bucketForUser, ShardMap } from "@floodgate/shard-router";
import {
  configToEnv,
  createTestEnvironment,
  type IntakeProcess,
  startIntakeProcess,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planMoves } from "./shards/shard-move-plan.ts";

const SHARDS_COMMAND = fileURLToPath(new URL("./shards-command.ts", import.meta.url));
const RECONCILE_COMMAND = fileURLToPath(new URL("./reconcile-command.ts", import.meta.url));
const TARGET_BUCKETS = 6;

let env: TestEnvironment;
let config: Config; // the two shards and the new one, listed last before its buckets move
let newShardUrl: string;
let global: Kysely<GlobalDatabase>;
let redis: ScriptedRedis;
let keys: QueueKeys;
let intake: IntakeProcess | undefined;
const workers: WorkerProcess[] = [];
const children = new Set<ChildProcess>();

function command(script: string, args: string[], cfg: Config = config) {
  const child = spawn(process.execPath, [script, ...args], {
    env: { PATH: process.env.PATH ?? "", ...configToEnv(cfg) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const done = new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (status) => {
      children.delete(child);
      resolve({ status, stdout, stderr });
    }),
  );
  return { child, done, stdout: () => stdout };
}

async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function withShard<T>(url: string, use: (db: Kysely<ShardDatabase>) => Promise<T>): Promise<T> {
  const db = createKysely<ShardDatabase>(url, { max: 1 });
  try {
    return await use(db);
  } finally {
    await db.destroy();
  }
}

const databaseExists = async (url: string) => {
  const name = new URL(url).pathname.slice(1);
  const { rows } = await sql<{
    n: number;
  }>`select count(*)::int as n from pg_database where datname = ${name}`.execute(global);
  return rows[0]!.n > 0;
};

async function post(path: string, body: unknown): Promise<string> {
  const response = await fetch(`${intake!.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${env.serverKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (response.status !== 202)
    throw new Error(`${path} refused: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

async function balanceRead(userId: string): Promise<number> {
  const response = await fetch(`${intake!.baseUrl}/v1/wallets/${userId}`, {
    headers: { authorization: `Bearer ${env.serverKey}` },
  });
  return ((await response.json()) as { balance: number }).balance;
}

beforeAll(async () => {
  env = await createTestEnvironment("shards-cli", { shards: 2, env: { VISIBILITY_TIMEOUT_MS: "4000" } });
  newShardUrl = env.config.shardUrls[1]!.replace(/_s1$/, "_s2");
  config = { ...env.config, shardUrls: [...env.config.shardUrls, newShardUrl] };
  global = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 2 });
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
});

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await Promise.all(workers.map((w) => w.kill()));
  await intake?.kill();
  redis?.disconnect();
  await global?.destroy();
  await dropDatabases([newShardUrl]).catch(() => {});
  await env?.cleanup();
});

describe("the shard map in the global database", () => {
  it("routes a user to the shard it records, not to the contiguous one", async () => {
    const user = "mapped-user";
    const bucket = bucketForUser(user);
    const contiguous = ShardMap.contiguous(2).shardForBucket(bucket);
    const owners = Array.from({ length: BUCKET_COUNT }, (_, b) => ShardMap.contiguous(2).shardForBucket(b));
    owners[bucket] = 1 - contiguous;
    await global.transaction().execute(async (trx) => {
      await writeShardMap(trx, new ShardMap(owners, 2));
      await bumpShardMapVersion(trx);
    });
    intake = await startIntakeProcess(config);
    workers.push(await startWorkerProcess(config), await startWorkerProcess(config));
    await post(`/v1/wallets/${user}/deposits`, { amount: 700 });
    await waitFor(async () => (await balanceRead(user)) === 700, "the deposit to be applied and read");
    const on = async (url: string) =>
      withShard(url, (db) =>
        db.selectFrom("wallets").select("balance").where("user_id", "=", user).execute(),
      );
    expect(await on(env.config.shardUrls[1 - contiguous]!)).toEqual([{ balance: 700 }]);
    expect(await on(env.config.shardUrls[contiguous]!)).toEqual([]);
  });

  it("./floodgate shards lists each shard's URL without its password, buckets, rows and size", async () => {
    const { status, stdout } = await command(SHARDS_COMMAND, [], env.config).done;
    expect(status).toBe(0);
    // The deposit (a wallet and a deposit row) is on the recorded shard.
    const recorded = 1 - ShardMap.contiguous(2).shardForBucket(bucketForUser("mapped-user"));
    for (const shard of [0, 1]) {
      const rows = shard === recorded ? 2 : 0;
      expect(stdout).toMatch(
        new RegExp(
          `shard ${shard} postgres://[^ ]*_s${shard}: buckets [-\\d, ]+ \\(\\d+\\); ${rows} rows, \\d+ \\w+`,
        ),
      );
    }
    expect(stdout).toMatch(/buckets 0-\d+(, \d+)? \((512|511|513)\)/);
  });
});

describe("./floodgate shards add", () => {
  it("--dry-run prints the plan and changes nothing", async () => {
    const before = await readShardMap(global, 3);
    const { status, stdout } = await command(SHARDS_COMMAND, ["add", newShardUrl, "--dry-run"]).done;
    expect(status).toBe(0);
    expect(stdout).toContain(`would move ${Math.floor(BUCKET_COUNT / 3)} buckets to shard 2`);
    expect(stdout).toContain("nothing was changed");
    expect(await databaseExists(newShardUrl)).toBe(false);
    const after = await readShardMap(global, 3);
    expect(after.version).toBe(before.version);
    expect(after.map.ranges()).toEqual(before.map.ranges());
    expect(await global.selectFrom("shard_moves").selectAll().execute()).toEqual([]);
  });

  describe("a live move with payments flowing, a worker and the mover SIGKILLed", () => {
    const accepted: { id: string; userId: string; amount: number; kind: "deposit" | "payment" }[] = [];
    let moved: Set<number>;
    let movedUsers: string[];
    let firstRun: { status: number | null; stdout: string; stderr: string };
    let secondRun: { status: number | null; stdout: string; stderr: string };

    beforeAll(async () => {
      const map = (await readShardMap(global, 3)).map;
      moved = new Set(planMoves(map, 2, TARGET_BUCKETS, []).map((m) => m.bucket));
      const candidates = Array.from({ length: 20_000 }, (_, i) => `mover-${i}`);
      movedUsers = candidates.filter((u) => moved.has(bucketForUser(u))).slice(0, 24);
      const others = candidates.filter((u) => !moved.has(bucketForUser(u))).slice(0, 8);
      const users = [...movedUsers, ...others];
      for (const userId of users) {
        accepted.push({
          id: await post(`/v1/wallets/${userId}/deposits`, { amount: 50_000 }),
          userId,
          amount: 50_000,
          kind: "deposit",
        });
      }
      let loading = true;
      const load = (async () => {
        for (let i = 0; loading; i++) {
          const userId = users[i % users.length]!;
          const amount = 100 + (i % 7) * 50;
          // A refusal (backpressure) is not accepted: only accepted payments are counted.
          const id = await post("/v1/payments", { userId, amount }).catch(() => undefined);
          if (id) accepted.push({ id, userId, amount, kind: "payment" });
          else await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();

      // The first mover is SIGKILLed once a bucket has switched (its old rows not deleted yet), and a worker
      // with it; the second run resumes.
      const first = command(SHARDS_COMMAND, ["add", newShardUrl, "--buckets", String(TARGET_BUCKETS)]);
      await waitFor(() => first.stdout().includes("switched (map version"), "the first bucket to switch");
      first.child.kill("SIGKILL");
      await workers[0]!.kill();
      workers.shift();
      firstRun = await first.done;
      workers.push(await startWorkerProcess(config));
      secondRun = await command(SHARDS_COMMAND, ["add", newShardUrl, "--buckets", String(TARGET_BUCKETS)])
        .done;
      loading = false;
      await load;
      await waitFor(async () => {
        const ids = await appliedIds();
        return accepted.every((a) => ids.has(a.id)) && (await pendingCount()) === 0;
      }, "every accepted operation applied and acknowledged").catch(async (error: Error) => {
        const ids = await appliedIds();
        const missing = accepted.filter((a) => !ids.has(a.id));
        throw new Error(
          `${error.message}: ${missing.length} of ${accepted.length} missing (buckets ${[
            ...new Set(missing.map((a) => bucketForUser(a.userId))),
          ]}), ${await pendingCount()} pending\nfirst run:\n${firstRun.stdout}${firstRun.stderr}\n` +
            `second run:\n${secondRun.stdout}${secondRun.stderr}\nworkers:\n${workers.map((w) => w.output().slice(-3000)).join("\n---\n")}`,
        );
      });
    });

    async function appliedIds(): Promise<Map<string, number>> {
      const counts = new Map<string, number>();
      for (const url of config.shardUrls) {
        const rows = await withShard(url, async (db) => [
          ...(await db.selectFrom("payments").select("id").execute()),
          ...(await db.selectFrom("deposits").select("id").execute()),
        ]);
        for (const { id } of rows) counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      return counts;
    }

    async function pendingCount(): Promise<number> {
      let n = 0;
      for (const stream of keys.allStreams()) {
        const summary = (await redis.xpending(stream, CONSUMER_GROUP).catch(() => [0])) as [number];
        n += Number(summary[0]);
      }
      return n;
    }

    it("was killed mid-move, and the rerun resumed what it left and finished", () => {
      expect(firstRun.status).toBe(null);
      expect(secondRun.stdout).toContain("resuming its move (switched) to shard 2");
      expect(secondRun.status).toBe(0);
      expect(secondRun.stdout).toContain("done: map version");
    });

    it("moved the planned buckets to the new shard, and only those", async () => {
      const { map, paused } = await readShardMap(global, 3);
      const owned = Array.from({ length: BUCKET_COUNT }, (_, b) => b).filter(
        (b) => map.shardForBucket(b) === 2,
      );
      expect(owned).toEqual([...moved].sort((a, b) => a - b));
      expect(paused.size).toBe(0);
      expect(await global.selectFrom("shard_moves").selectAll().execute()).toEqual([]);
    });

    it("applied every accepted operation exactly once", async () => {
      const ids = await appliedIds();
      for (const a of accepted) expect(ids.get(a.id), a.id).toBe(1);
      expect(accepted.filter((a) => a.kind === "payment").length).toBeGreaterThan(movedUsers.length);
    });

    it("keeps the moved users' rows on the new shard only, and answers their reads from it", async () => {
      const { map } = await readShardMap(global, 3);
      for (const [i, url] of config.shardUrls.entries()) {
        const wallets = await withShard(url, (db) =>
          db.selectFrom("wallets").select(["user_id", "balance"]).execute(),
        );
        for (const w of wallets) expect(map.shardForBucket(bucketForUser(w.user_id)), w.user_id).toBe(i);
        const payments = await withShard(url, (db) => db.selectFrom("payments").select("user_id").execute());
        for (const p of payments) expect(map.shardForBucket(bucketForUser(p.user_id)), p.user_id).toBe(i);
      }
      const onNew = await withShard(newShardUrl, (db) =>
        db.selectFrom("wallets").select(["user_id", "balance"]).where("user_id", "in", movedUsers).execute(),
      );
      expect(onNew.length).toBe(movedUsers.length);
      for (const w of onNew) expect(await balanceRead(w.user_id)).toBe(w.balance);
    });

    it("keeps every balance equal to deposits minus succeeded payments, and reconcile passes", async () => {
      for (const url of config.shardUrls) {
        const { rows } = await withShard(url, (db) =>
          sql<{ user_id: string }>`
            select w.user_id from wallets w where w.balance <>
                coalesce((select sum(amount) from deposits d where d.user_id = w.user_id and d.status = 'succeeded'), 0)
              - coalesce((select sum(amount) from payments p where p.user_id = w.user_id and p.status = 'succeeded'), 0)
          `.execute(db),
        );
        expect(rows).toEqual([]);
      }
      const reconcile = await command(RECONCILE_COMMAND, []).done;
      expect(reconcile.stdout).toContain("drift found 0");
      expect(reconcile.status).toBe(0);
    });

    it("./floodgate shards lists the new shard with its buckets", async () => {
      const { status, stdout } = await command(SHARDS_COMMAND, []).done;
      expect(status).toBe(0);
      expect(stdout).toMatch(
        new RegExp(`shard 2 postgres://.*_s2: buckets .* \\(${TARGET_BUCKETS}\\); \\d+ rows`),
      );
    });
  });
});
