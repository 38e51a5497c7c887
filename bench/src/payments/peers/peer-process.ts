// Starts a comparison peer (peer-server.ts) as a child on a free port, with a Redis key prefix of its own that
// is deleted when it stops (or on Ctrl-C).
import { freePort, startService } from "../../harness/child-service.ts";
import { registerCleanup } from "../../harness/interrupt-cleanup.ts";
import { deleteKeysWithPrefix } from "../../harness/redis-cleanup.ts";
import type { PeerName } from "./peer-names.ts";

export interface PeerProcess {
  name: PeerName;
  baseUrl: string;
  pid: number;
  keyPrefix: string;
  /** Stops the process, then deletes its keys; resolves to how many. */
  close(): Promise<number>;
}

export async function startPeer(options: {
  name: PeerName;
  redisUrl: string;
  /** Unique per run, e.g. fgpeer:<stamp>-raw: */
  keyPrefix: string;
  logFile: string;
}): Promise<PeerProcess> {
  const cleanRedis = () => deleteKeysWithPrefix(options.redisUrl, options.keyPrefix).catch(() => 0);
  const unregister = registerCleanup(cleanRedis);
  const port = await freePort();
  try {
    const service = await startService({
      name: `peer ${options.name}`,
      script: "bench/src/payments/peers/peer-server.ts",
      env: {
        PEER: options.name,
        PORT: String(port),
        REDIS_URL: options.redisUrl,
        PEER_KEY_PREFIX: options.keyPrefix,
      },
      port,
      readyPath: "/readyz",
      readyTimeoutMs: 30_000,
      logFile: options.logFile,
    });
    return {
      name: options.name,
      baseUrl: service.baseUrl,
      pid: service.pid,
      keyPrefix: options.keyPrefix,
      async close() {
        await service.stop();
        unregister();
        return cleanRedis();
      },
    };
  } catch (error) {
    unregister();
    await cleanRedis();
    throw error;
  }
}
