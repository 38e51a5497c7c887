// Entry of a comparison peer, started by the bench as a child process (like the baseline server): PEER names
// which (peer-names.ts), PORT where it listens, REDIS_URL the bench's Redis and PEER_KEY_PREFIX the keys it may
// write (the bench deletes them after). One process, one ioredis connection with auto-pipelining, as a
// production deployment of either would start.
import { Redis } from "ioredis";
import { buildBullmqPeer } from "./bullmq-peer.ts";
import { PEER_NAMES, type PeerName } from "./peer-names.ts";
import { buildRawStreamPeer } from "./raw-stream-peer.ts";

const builders = { raw: buildRawStreamPeer, bullmq: buildBullmqPeer } satisfies Record<PeerName, unknown>;

const peer = process.env.PEER as PeerName;
if (!PEER_NAMES.includes(peer)) throw new Error(`PEER must be one of ${PEER_NAMES.join(", ")}, got ${peer}`);
const port = Number(process.env.PORT);
const keyPrefix = process.env.PEER_KEY_PREFIX ?? `fgpeer:${peer}:`;
const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { enableAutoPipelining: true });

const app = builders[peer](redis, keyPrefix);
await app.listen({ port, host: "127.0.0.1" });

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    app
      .close()
      .then(() => redis.quit())
      .then(() => process.exit(0));
  });
}
