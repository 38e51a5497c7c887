// The admission leader on one Redis: its lease names an epoch that grows with every holder, its loop ticks
// every room with it, and a room refuses a deposed leader's epoch once the successor has ticked it. The same
// cases run on a Redis Cluster in admission-leader-cluster.test.ts.
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll } from "vitest";
import { leaderCases } from "./support/leader-cases.ts";
import { RoomTestKit } from "./support/room-test-kit.ts";

let env: TestEnvironment;
let kit: RoomTestKit;

beforeAll(async () => {
  env = await createTestEnvironment("admission-leader", { shards: 1 });
  kit = await RoomTestKit.start(env.config);
});

afterAll(async () => {
  await kit?.stop();
  await env?.cleanup();
});

leaderCases(() => kit);
