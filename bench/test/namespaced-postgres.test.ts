// A shard's Postgres on a test host of its own: started by initdb and pg_ctl as the `postgres` user, listening on
// the host's address over the bridge, unreachable while the host is partitioned and back once healed.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { createPool } from "@floodgate/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NamespacedPostgres, startNamespacedPostgres } from "../src/faults/hosts/namespaced-postgres.ts";
import { type TestHost, TestNetwork } from "../src/faults/hosts/test-network.ts";

let network: TestNetwork;
let host: TestHost;
let postgres: NamespacedPostgres;

beforeAll(() => {
  network = TestNetwork.create();
  host = network.addHost("shard");
  postgres = startNamespacedPostgres(host);
});

afterAll(() => {
  postgres?.stop();
  network?.close();
});

/** One query on a fresh connection, given up after 1.5 s (a partition drops packets: nothing answers). */
async function serverAddress(): Promise<string> {
  const pool = createPool(postgres.url, { max: 1, timeouts: { connectMs: 1500, queryMs: 1500 } });
  try {
    return (await pool.query<{ address: string }>("select host(inet_server_addr()) as address")).rows[0]!
      .address;
  } finally {
    await pool.end();
  }
}

describe("a Postgres server on its own test host", () => {
  it("runs as postgres and answers on the host's address", async () => {
    expect(await serverAddress()).toBe(host.address);
    const serverStatuses = execFileSync("ip", ["netns", "pids", host.namespace], { encoding: "utf8" })
      .split(/\s+/)
      .filter(Boolean)
      .map((pid) => readFileSync(path.join("/proc", pid, "status"), "utf8"))
      .filter((status) => /^Name:\s+postgres$/m.test(status));
    expect(serverStatuses.length).toBeGreaterThan(0);
    // Real and effective uid of every server process: not root's 0.
    for (const status of serverStatuses) expect(/^Uid:\s+(\d+)/m.exec(status)![1]).not.toBe("0");
  });

  it("stops answering while its host is partitioned, and answers again once healed", async () => {
    network.partition(host);
    try {
      await expect(serverAddress()).rejects.toThrow();
    } finally {
      network.heal(host);
    }
    expect(await serverAddress()).toBe(host.address);
  });
});
