// The slow, lossy link without netem (issue 35's slow link on a kernel lacking sch_netem): Redis on a host of its
// own, the host's link emulated by iptables (5 % of packets dropped each way) and NFQUEUE (each packet held by
// nfqueue-delay.py before its verdict). Every write sent across it is answered and kept (TCP retransmits what
// was dropped), the counters show packets dropped each way and packets held by the delay program, and once the
// link is restored no rule is left and Redis answers at once. Needs root and namespaces, as the partition case;
// iptables is installed when missing. A machine that cannot fails this file with what it lacks.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmulatedLinkCounts, EmulatedSlowLink } from "../src/faults/hosts/emulated-slow-link.ts";
import { run } from "../src/faults/hosts/host-command.ts";
import { type NamespacedRedis, startNamespacedRedis } from "../src/faults/hosts/namespaced-redis.ts";
import { slowLinkEmulationHere } from "../src/faults/hosts/slow-link-mechanism.ts";
import { SLOW_LOSSY_LINK, type TestHost, TestNetwork } from "../src/faults/hosts/test-network.ts";

/** Clients writing one key at a time each: every write a round trip of its own packets, so each way carries
 * several hundred packets and a 5 % drop misses none of the ways by chance (0.95^400 < 10^-8). */
const CLIENTS = 16;
const WRITES_EACH = 25;
const WRITES = CLIENTS * WRITES_EACH;

let network: TestNetwork;
let host: TestHost;
let redis: NamespacedRedis;
let client: Redis;
let writers: Redis[] = [];
let counts: EmulatedLinkCounts;
let written: (string | null)[];
let rulesAfter: string;
let iptables: string;

beforeAll(async () => {
  network = TestNetwork.create();
  host = network.addHost("slow");
  redis = await startNamespacedRedis(host);
  const tools = slowLinkEmulationHere();
  if (!("iptables" in tools))
    throw new Error(`cannot emulate the slow link here: ${tools.missing.join("; ")}`);
  iptables = tools.iptables;
  client = new Redis(redis.url, { maxRetriesPerRequest: 0 });
  const link = await EmulatedSlowLink.start(host, SLOW_LOSSY_LINK, tools);
  try {
    writers = Array.from({ length: CLIENTS }, () => new Redis(redis.url, { maxRetriesPerRequest: 0 }));
    await Promise.all(
      writers.map(async (writer, w) => {
        for (let i = 0; i < WRITES_EACH; i++)
          await writer.set(`slow:${w * WRITES_EACH + i}`, "x".repeat(200));
      }),
    );
    written = await client.mget(Array.from({ length: WRITES }, (_, i) => `slow:${i}`));
  } finally {
    counts = await link.stop();
  }
  const { file, args } = host.command(iptables, ["-w", "-S"]);
  rulesAfter = run(file, args);
}, 120_000);

afterAll(async () => {
  client?.disconnect();
  for (const writer of writers) writer.disconnect();
  await redis?.stop();
  network?.close();
});

describe("the slow, lossy link emulated with iptables and NFQUEUE", () => {
  it("answers and keeps every write sent across it", () => {
    expect(written.filter((value) => value === "x".repeat(200))).toHaveLength(WRITES);
  });

  it("dropped packets both ways and held the rest in the delay program until its verdict", () => {
    expect(counts.delayRan).toBe(true);
    expect(counts.dropped.in).toBeGreaterThan(0);
    expect(counts.dropped.out).toBeGreaterThan(0);
    expect(counts.seen.in).toBeGreaterThan(counts.dropped.in);
    // Every packet that was not dropped went through the queue: at least as many as the rules queued (a large GSO
    // packet, one for the rules, reaches the queue in segments).
    const queued = counts.seen.in - counts.dropped.in + counts.seen.out - counts.dropped.out;
    expect(counts.delayed).toBeGreaterThanOrEqual(queued);
  });

  it("leaves no rule behind, and the link answers once restored", async () => {
    expect(rulesAfter).not.toMatch(/NFQUEUE|statistic/);
    expect(await client.ping()).toBe("PONG");
  });
});
