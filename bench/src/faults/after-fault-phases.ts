// Phases that run on the same system once every fault is over, in order: the hostile-input suite (issue 18,
// point 10; bench/src/hostile/) is the last. Each returns what goes into the result's `afterFaults`.
import { hostileInputPhase } from "../hostile/hostile-input-phase.ts";
import type { FaultRig } from "./fault-rig.ts";

export interface AfterFaultPhase {
  name: string;
  run(rig: FaultRig): Promise<unknown>;
}

export const AFTER_FAULT_PHASES: readonly AfterFaultPhase[] = [hostileInputPhase()];
