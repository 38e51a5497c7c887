// Applies repairs slot by slot, as a Redis Cluster requires (a WATCH and a MULTI keep to one slot) and one
// Redis allows: the same code for both. Each slot's repairs (a coupon's state and holders, a product's state,
// one partition's redemption records) are one group: on the connection to the slot's node, WATCH the keys the
// check read there, read them again, and only if they still read as the check saw them, MULTI the writes and
// EXEC. A group whose keys changed since the check (before the WATCH: the second read differs; after it: EXEC
// answers null) writes nothing; the others still apply. One group at a time: an EXEC ends every WATCH of its
// connection, and reconcile is a rare admin command.
import type { DriftFinding, SlotRead, SlotWrite } from "./drift-finding.ts";
import type { NodeConnections } from "./node-connections.ts";

interface SlotGroup {
  reads: Set<SlotRead>;
  writes: SlotWrite[];
}

/** Applies every finding's writes, one transaction per slot. Returns the slots whose repairs did not apply. */
export async function applySlotRepairs(
  connections: NodeConnections,
  repairs: DriftFinding[],
): Promise<Set<string>> {
  const groups = new Map<string, SlotGroup>();
  for (const finding of repairs) {
    for (const write of finding.repair!.writes) {
      const group = groups.get(write.read.slot) ?? { reads: new Set(), writes: [] };
      group.reads.add(write.read);
      group.writes.push(write);
      groups.set(write.read.slot, group);
    }
  }
  const changed = new Set<string>();
  for (const [slot, group] of groups) {
    if (!(await applyGroup(connections, group))) changed.add(slot);
  }
  return changed;
}

/** True when the group's writes were applied; false when a key it read changed since the check. */
async function applyGroup(connections: NodeConnections, { reads, writes }: SlotGroup): Promise<boolean> {
  const keys = [...new Set([...reads].flatMap((read) => read.keys))];
  const redis = await connections.forKey(keys[0]!);
  await redis.watch(...keys);
  for (const read of reads) {
    if ((await read.read(redis)) !== read.seen) {
      await redis.unwatch();
      return false;
    }
  }
  const transaction = redis.multi();
  for (const { write } of writes) write(transaction);
  const replies = await transaction.exec();
  if (replies === null) return false;
  for (const [error] of replies) if (error) throw error;
  return true;
}

/**
 * Each finding's outcome after the repairs: repaired when every slot it writes applied; otherwise not repaired,
 * saying which slots changed (and which of its slots did apply). Returns the findings not (fully) repaired.
 */
export function settleOutcomes(repairs: DriftFinding[], changed: Set<string>): DriftFinding[] {
  const unrepaired: DriftFinding[] = [];
  for (const finding of repairs) {
    const slots = [...new Set(finding.repair!.writes.map((write) => write.read.slot))];
    const failed = slots.filter((slot) => changed.has(slot));
    if (failed.length === 0) {
      finding.outcome = "repaired";
      continue;
    }
    const applied = slots.filter((slot) => !changed.has(slot));
    finding.outcome = "not_repaired";
    finding.notApplied =
      `${failed.join(", ")} changed between the check and the repair` +
      (applied.length > 0 ? ` (${applied.join(", ")} repaired)` : "") +
      "; run again";
    unrepaired.push(finding);
  }
  return unrepaired;
}
