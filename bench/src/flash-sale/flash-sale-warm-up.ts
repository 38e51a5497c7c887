// The flash sale's warm-up: the first requests of a fresh process pay for JIT compilation, script loads and new
// connections, which is not what the sale measures.

import { adminRequest } from "../harness/admin-client.ts";
import type { BenchIdentity } from "../harness/bench-identity.ts";
import type { KeepAliveClient } from "../harness/keep-alive-client.ts";
import { log } from "../harness/progress-line.ts";
import { Crowd } from "./flash-sale-crowd.ts";
import type { FlashSaleOptions } from "./flash-sale-options.ts";

const WARMUP_ROOM = "warm-up";
/** Shoppers of the warm-up sale, at most; a quarter of them on sockets. */
const WARMUP_SHOPPERS = 2000;
/** Sessions long enough for the whole run (as the measured room's). */
const SESSION_SECONDS = 600;

/**
 * A small sale in a room of its own before the measured one, through the same paths (joins, sockets, polls,
 * guarded payments with tokens): the first requests of a fresh process pay for JIT compilation and script
 * loads, which is not what the flash sale measures. The room is turned off afterwards.
 */
export async function warmUp(
  identity: BenchIdentity,
  baseUrl: string,
  adminKey: string,
  options: FlashSaleOptions,
  keyPrefix: string,
  newClient: (baseUrl: string, connections: number) => KeepAliveClient,
): Promise<void> {
  const users = Math.min(WARMUP_SHOPPERS, options.users);
  const room = { admitPerSecond: 2000, sessionSeconds: SESSION_SECONDS, guards: ["payments"] };
  await adminRequest(baseUrl, adminKey, "PUT", `/v1/rooms/${WARMUP_ROOM}`, { mode: "on", ...room });
  const warmup = new Crowd({
    baseUrl,
    roomId: WARMUP_ROOM,
    users,
    websockets: Math.min(Math.floor(users / 4), options.websockets),
    joinRate: 1000,
    connections: options.connections,
    slices: options.slices,
    pollIntervalMs: 500,
    sessionMs: SESSION_SECONDS * 1000,
    keyPrefix,
    identity,
    pollClient: newClient(baseUrl, 50),
    payClient: newClient(baseUrl, 50),
  });
  await warmup.join();
  await Promise.race([warmup.settled, new Promise((resolve) => setTimeout(resolve, 30_000))]);
  warmup.close();
  await adminRequest(baseUrl, adminKey, "PUT", `/v1/rooms/${WARMUP_ROOM}`, { mode: "off", ...room });
  log(`warm-up sale done (${users} shoppers, not measured)`);
}
