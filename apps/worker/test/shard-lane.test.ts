// A shard's lane: stream order kept, one batch in flight at a time, an entry held once however often it is
// claimed, and a failed batch back at the front.
import type { OperationMessage } from "@floodgate/domain";
import type { StreamEntry } from "@floodgate/queue";
import { describe, expect, it } from "vitest";
import type { DecodedEntry } from "../src/shard-groups.ts";
import { ShardLane } from "../src/shard-lane.ts";

const item = (partition: number, entryId: string): DecodedEntry => ({
  entry: {
    partition,
    entryId,
    operationId: `op-${partition}-${entryId}`,
    payload: "",
    deliveries: 1,
  } as StreamEntry,
  message: { id: `op-${partition}-${entryId}` } as OperationMessage,
});
const ids = (items: DecodedEntry[]) => items.map((i) => `${i.entry.partition}/${i.entry.entryId}`);

function manual() {
  let finish: () => void = () => {};
  const batches: DecodedEntry[][] = [];
  const run = (group: DecodedEntry[]) => {
    batches.push(group);
    return new Promise<void>((resolve) => {
      finish = resolve;
    });
  };
  return { run, batches, finish: () => finish() };
}

describe("a shard lane", () => {
  it("runs one batch at a time, in stream order, at most `max` entries each", async () => {
    const lane = new ShardLane(0);
    const m = manual();
    lane.add([item(0, "1-0"), item(1, "1-0"), item(0, "2-0")]); // the same id in two partitions: two entries
    expect(lane.ready(Date.now())).toBe(true);
    lane.start(2, m.run);
    expect(ids(m.batches[0]!)).toEqual(["0/1-0", "1/1-0"]);
    lane.add([item(0, "3-0")]);
    expect(lane.ready(Date.now())).toBe(false); // a batch is in flight
    expect(lane.heldCount).toBe(4);
    lane.done(m.batches[0]!);
    m.finish();
    await lane.running;
    expect(lane.ready(Date.now())).toBe(true);
    lane.start(10, m.run);
    expect(ids(m.batches[1]!)).toEqual(["0/2-0", "0/3-0"]);
  });

  it("holds an entry once, however often it is claimed back", () => {
    const lane = new ShardLane(0);
    lane.add([item(0, "1-0")]);
    lane.add([item(0, "1-0"), item(0, "2-0")]);
    expect(lane.heldCount).toBe(2);
    expect(ids(lane.held())).toEqual(["0/1-0", "0/2-0"]);
  });

  it("puts a failed batch back in front, marked as attempted, and waits its backoff", async () => {
    const lane = new ShardLane(0);
    const m = manual();
    lane.add([item(0, "1-0"), item(0, "2-0")]);
    lane.start(1, m.run);
    lane.add([item(0, "3-0")]);
    lane.attempts += 1;
    lane.giveBack(m.batches[0]!, 60_000);
    m.finish();
    await lane.running;
    expect(ids(lane.held())).toEqual(["0/1-0", "0/2-0", "0/3-0"]);
    expect(lane.held()[0]!.attempted).toBe(true);
    expect(lane.ready(Date.now())).toBe(false);
    expect(lane.stalled(Date.now())).toBe(true);
    expect(lane.ready(Date.now() + 60_000)).toBe(true);
  });
});
