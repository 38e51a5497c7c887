// `./floodgate dlq` as an operator runs it, child processes of the real entry point, against a real intake
// and real workers: payments a shard refuses for a reason of their own (a trigger) are dead-lettered, the
// cause is removed, and a replay applies each exactly once; an order is refused; list, show, drop and the
// usage errors as typed.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createKysely, type GlobalDatabase } from "@floodgate/db";
import { encodeOperationMessage, newOperationId, newProductId, type OrderMessage } from "@floodgate/domain";
import { legacyDeadLetterStream, QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { bucketForUser } from "@floodgate/shard-router";
import {
  configToEnv,
  createTestEnvironment,
  type IntakeProcess,
  startIntakeProcess,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const COMMAND = fileURLToPath(new URL("./dlq-command.ts", import.meta.url));
const REFUSED_AMOUNT = 777;

let env: TestEnvironment;
let redis: ScriptedRedis;
let keys: QueueKeys;
let intake: IntakeProcess;
let worker: WorkerProcess | undefined;
let shards: pg.Client[];
const ids = { a: "", b: "", c: "", order: "", garbled: "", goodA: "" };

function dlq(args: string[], extraEnv: Record<string, string> = {}) {
  let child: ChildProcess;
  const done = new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    child = spawn(process.execPath, [COMMAND, ...args], {
      env: { PATH: process.env.PATH ?? "", ...configToEnv(env.config), ...extraEnv },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr!.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
  return done;
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${worker?.output() ?? ""}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function post(path: string, body: object): Promise<string> {
  const response = await fetch(`${intake.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${env.serverKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (response.status !== 202) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

async function payment(id: string): Promise<{ status: string; failureReason?: string }> {
  const response = await fetch(`${intake.baseUrl}/v1/payments/${id}`, {
    headers: { authorization: `Bearer ${env.serverKey}` },
  });
  return (await response.json()) as { status: string; failureReason?: string };
}

/** Over every shard: a user's balance and how many payment rows carry an id. */
async function balance(userId: string): Promise<number> {
  let total = 0;
  for (const shard of shards) {
    const { rows } = await shard.query("select balance from wallets where user_id = $1", [userId]);
    total += rows.reduce((sum, row) => sum + Number(row.balance), 0);
  }
  return total;
}
async function paymentRows(id: string): Promise<number> {
  let total = 0;
  for (const shard of shards) {
    total += (await shard.query("select 1 from payments where id = $1", [id])).rowCount ?? 0;
  }
  return total;
}

const deadLetterIds = async () =>
  ((await redis.xrange(keys.deadLetters(), "-", "+")) as [string, string[]][]).map(
    ([, fields]) => fields[fields.indexOf("id") + 1],
  );

async function gauge(): Promise<number> {
  const text = await (await fetch(`${intake.baseUrl}/metrics`)).text();
  return Number(/^floodgate_dead_letter_entries (\S+)$/m.exec(text)?.[1]);
}

/** The entries of one operation id on its partition stream. */
async function streamEntriesOf(id: string): Promise<number> {
  const rows = (await redis.xrange(keys.stream(keys.partitionForOperation(id)!), "-", "+")) as [
    string,
    string[],
  ][];
  return rows.filter(([, fields]) => fields[fields.indexOf("id") + 1] === id).length;
}

beforeAll(async () => {
  env = await createTestEnvironment("dlq-cli", {
    shards: 2,
    env: { MAX_DELIVERIES: "2", VISIBILITY_TIMEOUT_MS: "500" },
  });
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
  shards = env.config.shardUrls.map((url) => new pg.Client({ connectionString: url }));
  for (const shard of shards) {
    await shard.connect();
    // The shard refuses one amount on its own: a failure of the message, not of the store.
    await shard.query(`
      create function refuse_amount() returns trigger language plpgsql as $$
      begin
        if new.amount = ${REFUSED_AMOUNT} then raise exception 'payment refused by the test trigger'; end if;
        return new;
      end $$;
      create trigger refuse_amount before insert on payments for each row execute function refuse_amount();`);
  }
  intake = await startIntakeProcess(env.config);
  for (const user of ["buyer-a", "buyer-b", "buyer-c"]) {
    await post(`/v1/wallets/${user}/deposits`, { amount: 1_000 });
  }
  ids.a = await post("/v1/payments", { userId: "buyer-a", amount: REFUSED_AMOUNT });
  ids.goodA = await post("/v1/payments", { userId: "buyer-a", amount: 100 });
  ids.b = await post("/v1/payments", { userId: "buyer-b", amount: REFUSED_AMOUNT });
  ids.c = await post("/v1/payments", { userId: "buyer-c", amount: REFUSED_AMOUNT });

  // An order the worker cannot apply (dead-letter.test.ts does the same): a product Postgres holds none of,
  // so reserving its global stock breaks CHECK (stock >= 0) on every delivery.
  const global = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 1 });
  const productId = newProductId();
  await global
    .insertInto("products")
    .values({ id: productId, name: "drifted", price: 10, stock: 0, received: 0 })
    .execute();
  await global.destroy();
  ids.order = newOperationId("order", bucketForUser("buyer-d"));
  const order: OrderMessage = {
    v: 1,
    kind: "order",
    id: ids.order,
    userId: "buyer-d",
    items: [{ productId, quantity: 1, unitPrice: 10 }],
    discount: 0,
    amount: 10,
    currency: env.config.currency,
    expiresAt: Date.now() + 600_000,
    createdAt: Date.now(),
  };
  const partition = keys.partitionForOperation(ids.order)!;
  await redis.hset(
    keys.status(partition, ids.order),
    "status",
    "pending",
    "message",
    encodeOperationMessage(order),
  );
  await redis.xadd(keys.stream(partition), "*", "id", ids.order, "m", encodeOperationMessage(order));

  // And a message that does not decode (cut short), as the intake's status and stream would hold it.
  ids.garbled = newOperationId("payment", bucketForUser("buyer-e"));
  const garbled = keys.partitionForOperation(ids.garbled)!;
  await redis.hset(
    keys.status(garbled, ids.garbled),
    "status",
    "pending",
    "id",
    ids.garbled,
    "message",
    '{"v":1',
  );
  await redis.xadd(keys.stream(garbled), "*", "id", ids.garbled, "m", '{"v":1,"kind":"payment",');

  worker = await startWorkerProcess(env.config);
  await waitFor(async () => (await deadLetterIds()).length === 5, "five dead letters");
  await waitFor(async () => (await payment(ids.goodA)).status === "succeeded", "the good payment");
  // Replays below are checked on the stream before any worker reads them.
  await worker.stop();
  worker = undefined;
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await intake?.kill("SIGTERM");
  for (const shard of shards ?? []) await shard.end();
  redis?.disconnect();
  await env?.cleanup();
});

describe("./floodgate dlq", () => {
  it("list shows each dead letter with its kind, user, reason and times; --json every field", async () => {
    const { status, stdout } = await dlq(["list"]);
    expect(status).toBe(0);
    const lines = stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID +KIND +USER +REASON +FIRST FAILURE +LAST FAILURE$/);
    expect(lines).toHaveLength(6);
    const rowOf = (id: string) => lines.find((line) => line.startsWith(id)) ?? "";
    expect(rowOf(ids.a)).toMatch(/ payment +buyer-a +payment refused by the test trigger +\d{4}-\d\d-\d\dT/);
    expect(rowOf(ids.order)).toMatch(
      / order +buyer-d +new row for relation "products" violates check constraint/,
    );
    const json = JSON.parse((await dlq(["list", "--json"])).stdout) as Record<string, unknown>[];
    expect(json.map((entry) => entry.id).sort()).toEqual(
      [ids.a, ids.b, ids.c, ids.order, ids.garbled].sort(),
    );
    expect(json.find((entry) => entry.id === ids.b)).toMatchObject({
      kind: "payment",
      userId: "buyer-b",
      deliveries: 2,
      message: { kind: "payment", amount: REFUSED_AMOUNT, userId: "buyer-b" },
    });
    // Delivered twice (MAX_DELIVERIES=2): the first failure was recorded at the first delivery, before the last.
    const b = json.find((entry) => entry.id === ids.b)!;
    expect(Date.parse(b.firstFailureAt as string)).toBeLessThan(Date.parse(b.lastFailureAt as string));
    expect(await redis.keys(`${env.config.redisPrefix}*ffail*`)).toEqual([]);
  });

  it("show prints everything, the status Redis holds and the message pretty-printed", async () => {
    const { status, stdout } = await dlq(["show", ids.a]);
    expect(status).toBe(0);
    expect(stdout).toContain(`id:              ${ids.a}\n`);
    expect(stdout).toContain("reason:          payment refused by the test trigger");
    expect(stdout).toMatch(/status in Redis: failed, dead_lettered, \d{4}-/);
    expect(stdout).toContain("replay:          possible");
    expect(stdout).toContain(`message:\n  {\n    "v": 1,\n    "kind": "payment",\n    "id": "${ids.a}",`);
    expect(stdout).toContain(`    "amount": ${REFUSED_AMOUNT},`);
    const missing = await dlq(["show", "pay_nothing"]);
    expect(missing.status).toBe(1);
    expect(missing.stdout).toBe("[dlq] no dead letter pay_nothing\n");
  });

  it("refuses bad arguments with exit 2 and a line naming them, touching nothing", async () => {
    const cases: [string[], string][] = [
      [[], "[dlq] a subcommand is needed: list, show, replay or drop"],
      [["replay"], "[dlq] replay needs an id or --all, not both"],
      [["replay", ids.a, "--all"], "[dlq] replay needs an id or --all, not both"],
      [["drop", "--all"], "[dlq] drop --all deletes every dead letter for good: add --yes to confirm"],
      [["show"], "[dlq] show needs an id"],
      [["purge"], "[dlq] unknown subcommand 'purge' (list, show, replay or drop)"],
      [["list", "--force"], "[dlq] Unknown option '--force'"],
      [["replay", ids.a, ids.b], `[dlq] unexpected argument '${ids.b}'`],
      [["replay", ids.a, "--yes"], "[dlq] --yes confirms drop --all only"],
      [["drop", ids.a, "--json"], "[dlq] --json is for list and show"],
    ];
    for (const [args, line] of cases) {
      const { status, stdout, stderr } = await dlq(args);
      expect({ args, status, first: stderr.split("\n")[0] }).toEqual({ args, status: 2, first: line });
      expect(stderr).toContain("Usage: ./floodgate dlq");
      expect(stdout).toBe("");
    }
    expect(await deadLetterIds()).toHaveLength(5);
    const help = await dlq(["replay", "--help"]);
    expect([help.status, help.stdout.split("\n")[0]]).toEqual([
      0,
      "Usage: ./floodgate dlq <list|show|replay|drop> [id] [options]",
    ]);
  });

  it("exits 78 on a bad configuration, reading nothing", async () => {
    const { status, stderr, stdout } = await dlq(["list"], { STREAM_PARTITIONS: "zero" });
    expect(status).toBe(78);
    expect(stderr).toContain("STREAM_PARTITIONS");
    expect(stdout).toBe("");
  });

  it("exits 1 naming Redis when it is out of reach", async () => {
    const { status, stderr, stdout } = await dlq(["list"], { REDIS_URL: "redis://127.0.0.1:1" });
    expect(status).toBe(1);
    expect(stderr).toMatch(/^\[dlq\] could not list: Redis not ready/);
    expect(stdout).toBe("");
  });

  it("refuses to replay an order, whose reservation was given back, and leaves it", async () => {
    const { status, stdout } = await dlq(["replay", ids.order]);
    expect(status).toBe(1);
    expect(stdout).toContain(`[dlq] refused to replay ${ids.order}: it is an order, and its reserved stock`);
    expect(await deadLetterIds()).toContain(ids.order);
    expect(await streamEntriesOf(ids.order)).toBe(1); // only its first append
  });

  it("refuses to replay a message that does not decode, and leaves it", async () => {
    const { status, stdout } = await dlq(["replay", ids.garbled]);
    expect(status).toBe(1);
    expect(stdout).toMatch(
      new RegExp(
        `^\\[dlq\\] refused to replay ${ids.garbled}: its message does not decode \\(.*not JSON.*\\): the worker would dead-letter it again; drop it\n$`,
      ),
    );
    expect(await deadLetterIds()).toContain(ids.garbled);
    expect((await dlq(["list"])).stdout).toMatch(new RegExp(`${ids.garbled} +payment +\\? +`));
  });

  it("two operators replaying one id at once append it once and set its status pending", async () => {
    // The cause is fixed: the shards take the amount now.
    for (const shard of shards) await shard.query("drop trigger refuse_amount on payments");
    const before = await streamEntriesOf(ids.a);
    const runs = await Promise.all([dlq(["replay", ids.a]), dlq(["replay", ids.a])]);
    expect(runs.map((run) => run.status).sort()).toEqual([0, 1]);
    const winner = runs.find((run) => run.status === 0)!;
    expect(winner.stdout).toMatch(
      new RegExp(`^\\[dlq\\] replayed ${ids.a} to partition \\d+ \\(stream entry \\d+-\\d+\\)`),
    );
    const loser = runs.find((run) => run.status === 1)!;
    expect(loser.stdout).toMatch(/was already replayed by another dlq command|no dead letter/);
    expect(await streamEntriesOf(ids.a)).toBe(before + 1);
    expect(await deadLetterIds()).not.toContain(ids.a);
    expect(await payment(ids.a)).toMatchObject({ status: "pending" });
    expect((await payment(ids.a)).failureReason).toBeUndefined();
  });

  it("a replayed payment whose first attempt had reached its shard is recognised, not applied again", async () => {
    // As if a commit of c's first attempt had landed: its row and its debit are on the shard already.
    let touched = 0;
    for (const client of shards) {
      const { rows } = await client.query("select 1 from wallets where user_id = 'buyer-c'");
      if (rows.length === 0) continue;
      await client.query("begin");
      await client.query(
        `insert into payments (id, user_id, amount, currency, status, created_at, completed_at)
         values ($1, 'buyer-c', $2, $3, 'succeeded', now(), now())`,
        [ids.c, REFUSED_AMOUNT, env.config.currency],
      );
      await client.query("update wallets set balance = balance - $1 where user_id = 'buyer-c'", [
        REFUSED_AMOUNT,
      ]);
      await client.query("commit");
      touched += 1;
    }
    expect(touched).toBe(1);
    expect((await dlq(["replay", ids.c])).status).toBe(0);
  });

  it("a worker then applies each replay exactly once; GET and the status WebSocket show the outcome", async () => {
    // A socket opened after the replay: pending at once, then the worker's final status, then closed 1000.
    const url = `${intake.baseUrl.replace(/^http/, "ws")}/v1/operations/${ids.a}/ws?access_token=${encodeURIComponent(env.serverKey)}`;
    const socket = new WebSocket(url);
    const views: string[] = [];
    socket.addEventListener("message", (event) => {
      views.push((JSON.parse(String(event.data)) as { operation: { status: string } }).operation.status);
    });
    const closed = new Promise<number>((resolve) =>
      socket.addEventListener("close", (event) => resolve(event.code)),
    );
    await waitFor(async () => views.length > 0, "the socket's first view");
    expect(views).toEqual(["pending"]);
    worker = await startWorkerProcess(env.config);
    expect(await closed).toBe(1000);
    expect(views).toEqual(["pending", "succeeded"]);
    await waitFor(async () => (await payment(ids.a)).status === "succeeded", "the replayed payment");
    await waitFor(async () => (await payment(ids.c)).status === "succeeded", "the recognised payment");
    expect(await paymentRows(ids.a)).toBe(1);
    expect(await paymentRows(ids.c)).toBe(1);
    expect(await balance("buyer-a")).toBe(1_000 - 100 - REFUSED_AMOUNT);
    expect(await balance("buyer-c")).toBe(1_000 - REFUSED_AMOUNT);
    expect(await deadLetterIds()).not.toContain(ids.c);
    expect((await dlq(["replay", ids.a])).stdout).toContain(`no dead letter ${ids.a}`);
  });

  it("drop removes one for good; its operation stays failed and is never applied", async () => {
    const { status, stdout } = await dlq(["drop", ids.b]);
    expect(status).toBe(0);
    expect(stdout).toBe(`[dlq] dropped ${ids.b}; its status stays failed (dead_lettered) until it expires\n`);
    expect(await deadLetterIds()).not.toContain(ids.b);
    expect(await payment(ids.b)).toMatchObject({ status: "failed", failureReason: "dead_lettered" });
    expect(await paymentRows(ids.b)).toBe(0);
    expect(await balance("buyer-b")).toBe(1_000);
    expect((await dlq(["drop", ids.b])).status).toBe(1);
  });

  it("drop --all --yes empties the stream, and the gauge goes back to 0", async () => {
    expect(await gauge()).toBe(2); // the order and the garbled message
    const { status, stdout } = await dlq(["drop", "--all", "--yes"]);
    expect(status).toBe(0);
    expect(stdout).toContain("[dlq] dropped 2, refused 0");
    expect(await deadLetterIds()).toEqual([]);
    expect(await gauge()).toBe(0);
    expect((await dlq(["list"])).stdout).toBe("[dlq] no dead letters\n");
  });

  it("moves what the previous release left in the untagged stream first, and settles its copies together", async () => {
    // Two copies of one operation (a worker of that release dead-lettered it twice), as it wrote them.
    const id = newOperationId("payment", bucketForUser("buyer-legacy"));
    const legacy = legacyDeadLetterStream(keys);
    for (const at of ["1000-0", "2000-0"]) {
      await redis.xadd(
        legacy,
        at,
        "id",
        id,
        "partition",
        keys.partitionForOperation(id)!,
        "entryId",
        "1-0",
        "deliveries",
        2,
        "reason",
        "refused by the old release",
        "firstFailedAt",
        500,
        "m",
        '{"v":1',
      );
    }
    const { status, stdout, stderr } = await dlq(["list", "--json"]);
    expect(status).toBe(0);
    expect(stderr).toBe("[dlq] moved 2 dead letters from the stream of the previous release\n");
    expect(await redis.xlen(legacy)).toBe(0);
    const listed = (JSON.parse(stdout) as Record<string, unknown>[]).filter((entry) => entry.id === id);
    expect(listed.map((entry) => [entry.reason, entry.lastFailureAt])).toEqual([
      ["refused by the old release", new Date(1000).toISOString()],
      ["refused by the old release", new Date(2000).toISOString()],
    ]);
    expect(await gauge()).toBe(2);
    const dropped = await dlq(["drop", id]);
    expect(dropped.stdout).toBe(
      `[dlq] dropped ${id}; its status stays failed (dead_lettered) until it expires (and dropped 1 duplicate entries)\n`,
    );
    expect(await deadLetterIds()).toEqual([]);
  });

  it("replay --all puts back many, saying how far it got, and each is applied once", async () => {
    for (const shard of shards) {
      await shard.query(
        "create trigger refuse_amount before insert on payments for each row execute function refuse_amount()",
      );
    }
    const users = Array.from({ length: 120 }, (_, i) => `crowd-${i}`);
    await Promise.all(users.map((user) => post(`/v1/wallets/${user}/deposits`, { amount: 1_000 })));
    const paid = await Promise.all(
      users.map((userId) => post("/v1/payments", { userId, amount: REFUSED_AMOUNT })),
    );
    await waitFor(async () => (await deadLetterIds()).length === users.length, "120 dead letters", 120_000);
    for (const shard of shards) await shard.query("drop trigger refuse_amount on payments");
    const { status, stdout, stderr } = await dlq(["replay", "--all"]);
    expect(status).toBe(0);
    expect(stderr).toContain("[dlq] 100 of 120 dead letters: replayed 100, refused 0");
    expect(stdout).toBe(
      "[dlq] replayed 120, refused 0, already settled by another command 0, duplicate entries dropped 0\n",
    );
    expect(await gauge()).toBe(0);
    await waitFor(
      async () => (await Promise.all(paid.map(payment))).every((p) => p.status === "succeeded"),
      "every replayed payment",
      120_000,
    );
    for (const [i, id] of paid.entries()) {
      expect(await paymentRows(id)).toBe(1);
      expect(await balance(users[i]!)).toBe(1_000 - REFUSED_AMOUNT);
    }
  }, 300_000);
});
