// The connections reconcile's repairs WATCH and EXEC on: one plain connection per Redis node (the one Redis, or
// each master of a cluster), opened for the repairs and closed after them, the same way on both.
//
// Not the ioredis Cluster client: it sends a WATCH to the slot's master over the one connection it shares with
// every other command to that node, so any other EXEC there drops the WATCH (WATCH is per connection: ioredis
// #266); a MOVED makes it retry the MULTI on another node, where nothing is watched; and after a reconnect the
// WATCH is silently gone (#1686). ioredis leaves a WATCH across calls on a cluster to the caller, with a
// connection of its own per node (#999, closed as wontfix). So: a dedicated connection, told never to reconnect
// or retry, and never following a redirect (a plain connection answers MOVED with an error). A WATCH lost with
// it fails the run instead of letting a MULTI apply unwatched.
import type { Cluster, Redis } from "ioredis";

export class NodeConnections {
  readonly #redis: Redis | Cluster;
  readonly #open = new Map<string, Redis>();

  /** `redis` only finds the node serving a key; nothing is sent on its own connections but CLUSTER KEYSLOT. */
  constructor(redis: Redis | Cluster) {
    this.#redis = redis;
  }

  /** The connection to the master that serves `key`'s slot, opened on first use. */
  async forKey(key: string): Promise<Redis> {
    const node = await this.#masterOf(key);
    const address = `${node.options.host}:${node.options.port}`;
    const open = this.#open.get(address);
    if (open) return open;
    const connection = node.duplicate({
      connectionName: "floodgate-reconcile-repairs",
      lazyConnect: true,
      readOnly: false,
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
    });
    connection.on("error", () => {}); // reported by the command that fails, not as an unhandled event
    this.#open.set(address, connection);
    await connection.connect();
    return connection;
  }

  close(): void {
    for (const connection of this.#open.values()) connection.disconnect();
    this.#open.clear();
  }

  async #masterOf(key: string): Promise<Redis> {
    if (!this.#redis.isCluster) return this.#redis as Redis;
    const cluster = this.#redis as Cluster;
    const slot = Number(await cluster.cluster("KEYSLOT", key));
    // The client's slot map: if it is stale (a resharding), the WATCH below is answered MOVED and the run fails.
    const owner = cluster.slots[slot]?.[0];
    const node = cluster.nodes("master").find((n) => `${n.options.host}:${n.options.port}` === owner);
    if (!node) throw new Error(`no master known for slot ${slot} (key ${key})`);
    return node;
  }
}
