// A partition during `./floodgate shards add`: the spare shard (the move's target, on the shards' host with
// shards 1 and 2, sources of some of its buckets) is added as an operator adds it, under the shop's load; once a
// bucket has switched and another is caught paused (being fenced, copied or verified), the shards' host is cut
// for --partition seconds and healed. The move then goes on by itself, or fails and is run again as
// docs/operations.md says (a rerun resumes each recorded move); a run still going long after the heal is killed
// and rerun, as a stuck one would be. Its end state is read from the databases: nothing left unfinished, the
// target owning what was planned, every user's rows on the one shard owning their bucket.
import { log } from "../../harness/progress-line.ts";
import { FAILED_NOTE } from "./failed-note.ts";
import { type HostsFaultRig, SPARE_SHARD } from "./hosts-fault-rig.ts";
import { endStateProblems, readMoveEndState, waitForPausedMove } from "./shard-move-end-state.ts";
import { type ShardsAddRun, startShardsAdd } from "./shards-add-command.ts";

/** Runs of `shards add` at most: the first, cut by the partition, and reruns if it fails or sticks. */
const MOVER_RUNS = 3;
/** Longest wait for the first bucket to switch, then for a bucket paused after it. */
const FIRST_SWITCH_WAIT_MS = 120_000;
const PAUSED_WAIT_MS = 30_000;
/** A run still going this long after the heal (or after it started, for a rerun) is killed and run again. */
const RUN_WAIT_MS = 300_000;

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

async function waitForSwitch(run: ShardsAddRun, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (run.switched() > 0) return true;
    if ((await run.exited(50)) !== null) return false;
  }
  return false;
}

const lastLine = (run: ShardsAddRun) => run.lines.filter(Boolean).at(-1) ?? "(no output)";

export async function partitionDuringShardsAdd(
  rig: HostsFaultRig,
  partitionSeconds: number,
): Promise<string[]> {
  const url = rig.shardUrls[SPARE_SHARD]!;
  const start = () =>
    startShardsAdd({
      url,
      environment: rig.system.environment(rig.workers),
      logFile: rig.system.config.logFile,
    });
  const first = start();
  if (!(await waitForSwitch(first, FIRST_SWITCH_WAIT_MS))) {
    await first.kill();
    return [
      `${FAILED_NOTE} shards add switched no bucket within ${FIRST_SWITCH_WAIT_MS / 1000} s (or ended first): ${lastLine(first)}`,
    ];
  }
  const inFlight = await waitForPausedMove(rig.system.config.databaseUrl, PAUSED_WAIT_MS);
  const switchedBefore = first.switched();
  rig.network.partition(rig.shardHost);
  log(`shards add: ${switchedBefore} buckets switched; ${rig.shardHost.namespace} partitioned`);
  await sleep(partitionSeconds);
  const switchedDuring = first.switched() - switchedBefore;
  rig.network.heal(rig.shardHost);
  const notes = [
    `shards add of shard ${SPARE_SHARD} planned ${first.planned() ?? "?"} buckets; after ${switchedBefore} had switched, ` +
      (inFlight
        ? `with bucket ${inFlight.bucket} (shard ${inFlight.from} -> ${inFlight.to}) paused (fenced, copying or verifying), `
        : "with no bucket caught paused, ") +
      `${rig.shardHost.namespace} (shards 1, 2 and the target ${SPARE_SHARD}) was partitioned for ${partitionSeconds} s; ${switchedDuring} buckets switched meanwhile`,
  ];
  if (!inFlight)
    notes.push(`${FAILED_NOTE} no bucket was caught mid-move: the partition may have cut no copy`);

  let run = first;
  for (let runs = 1; ; runs++) {
    const status = await run.exited(RUN_WAIT_MS);
    notes.push(
      `shards add run ${runs}: ${status === null ? `still running after ${RUN_WAIT_MS / 1000} s, killed` : `exit ${status}`}; ${run.switched()} buckets switched; last line: ${lastLine(run)}`,
    );
    if (status === 0) break;
    if (status === null) await run.kill();
    if (runs >= MOVER_RUNS) {
      notes.push(`${FAILED_NOTE} shards add did not finish in ${MOVER_RUNS} runs`);
      break;
    }
    log(`shards add run ${runs} ended (${status ?? "killed"}): running it again, as the docs say`);
    run = start();
  }

  const state = await readMoveEndState(rig.system.config.databaseUrl, rig.shardUrls);
  notes.push(
    `end state: map version ${state.mapVersion}, buckets per shard ${state.bucketsPerShard.join("/")}, ${state.unfinishedMoves} moves unfinished, ${state.pausedBuckets} paused, ${state.misplacedCount} users' rows on a shard not owning their bucket`,
  );
  const planned = first.planned();
  const problems =
    planned === null
      ? ["the first run never said how many buckets it would move"]
      : endStateProblems(state, SPARE_SHARD, planned);
  return [...notes, ...problems.map((problem) => `${FAILED_NOTE} ${problem}`)];
}
