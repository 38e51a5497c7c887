// What XINFO says about one partition stream, read so that it also works on a Redis Cluster. ioredis finds no
// key in XINFO (the key sits after a subcommand), so on a cluster a lone XINFO goes to a random node and comes
// back MOVED, and an auto-pipelined one is batched for the node of the word "GROUPS": streams of several masters
// then fail together with different MOVEDs, which ioredis does not retry. XLEN first, in one pipeline, routes
// the pair to the stream's master (one write), and a MOVED during resharding is then the same for all of it,
// which ioredis follows. For several streams, call this for each concurrently: one round trip in all.
import type { Cluster, Redis } from "ioredis";
import { CONSUMER_GROUP } from "./queue-keys.ts";

export interface StreamInfo {
  /** XLEN. */
  length: number;
  /** XINFO GROUPS, one record per group (name, pending, lag, entries-read, last-delivered-id, ...). */
  groups: Record<string, unknown>[];
  /** XINFO STREAM as a record (last-generated-id, ...), when asked for. */
  stream?: Record<string, unknown>;
}

/** The stream's length and groups (and XINFO STREAM if `withStream`), or null when the stream does not exist. */
export async function readStreamInfo(
  redis: Redis | Cluster,
  stream: string,
  options: { withStream?: boolean } = {},
): Promise<StreamInfo | null> {
  const pipeline = redis.pipeline().xlen(stream);
  if (options.withStream) pipeline.xinfo("STREAM", stream);
  pipeline.xinfo("GROUPS", stream);
  const replies = await pipeline.exec();
  if (replies === null) throw new Error(`XINFO of ${stream} did not run`);
  const [lengthReply, ...infoReplies] = replies;
  const [lengthError, length] = lengthReply!;
  if (lengthError) throw lengthError;
  const infoError = infoReplies.find(([error]) => error !== null)?.[0];
  // XINFO refuses a key that does not exist, which XLEN counts as 0: nothing queued there.
  if (infoError) {
    if (length === 0) return null;
    throw infoError;
  }
  const infos = infoReplies.map(([, reply]) => reply);
  const groups = (infos.at(-1) as unknown[][]).map(record);
  return {
    length: Number(length),
    groups,
    ...(options.withStream ? { stream: record(infos[0] as unknown[]) } : {}),
  };
}

/** The workers' consumer group of the stream, if they created it yet. */
export const workerGroup = (info: StreamInfo): Record<string, unknown> | undefined =>
  info.groups.find((group) => group.name === CONSUMER_GROUP);

function record(flat: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[String(flat[i])] = flat[i + 1];
  return out;
}
