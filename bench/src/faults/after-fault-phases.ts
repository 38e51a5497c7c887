// Phases that run on the same system once every fault is over, in order: reconcile (issue 33: clean with the
// provider-paid orders mixed in) first, on the faults' data alone; the hostile-input suite (issue 18, point 10;
// bench/src/hostile/) is the last. Each returns what goes into the result's `afterFaults`.
import { hostileInputPhase } from "../hostile/hostile-input-phase.ts";
import type { FaultRig } from "./fault-rig.ts";
import { reconcilePhase } from "./reconcile-phase.ts";

export interface AfterFaultPhase {
  name: string;
  run(rig: FaultRig): Promise<unknown>;
}

export const AFTER_FAULT_PHASES: readonly AfterFaultPhase[] = [reconcilePhase(), hostileInputPhase()];
