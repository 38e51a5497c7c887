// The suite as a phase on a system someone else started: what `./floodgate bench faults` registers in its
// AFTER_FAULT_PHASES (bench/src/faults/after-fault-phases.ts), and what run-hostile-input.ts
// runs. It takes the rig structurally (a started FloodgateSystem and the start command's pid), so it fits the
// faults suite's FaultRig without importing it.

import { childPids } from "../faults/process-tree.ts";
import type { FloodgateSystem } from "../harness/floodgate-system.ts";
import { log } from "../harness/progress-line.ts";
import { type HostileInputResult, type HostileInputSizes, runHostileInput } from "./hostile-input-suite.ts";

export interface HostileRig {
  /** Started and authenticated (system.authenticate()): its identity holds the shop's server key. */
  system: FloodgateSystem;
  /** The start command's pid: the intake processes are its children. */
  supervisorPid: number;
}

export function hostileInputPhase(sizes: Partial<HostileInputSizes> = {}) {
  return {
    name: "hostile input",
    run: (rig: HostileRig): Promise<HostileInputResult> => {
      const { system, supervisorPid } = rig;
      const { identity } = system;
      const serverKey = (identity.serverHeaders().authorization ?? "").replace(/^Bearer /, "");
      if (serverKey === "") throw new Error("hostile input needs AUTH=on and system.authenticate() first");
      return runHostileInput({
        baseUrl: system.baseUrl,
        serverKey,
        adminKey: system.adminKey,
        customerToken: async (userId) => {
          await identity.addShoppers([userId]);
          const token = identity.shopperToken(userId);
          if (token === null) throw new Error(`no customer token for ${userId}`);
          return token;
        },
        intakePids: async () => childPids(supervisorPid, "intake"),
        log,
        sizes,
      });
    },
  };
}
