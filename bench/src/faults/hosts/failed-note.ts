/** A fault's note starting so fails the run (hosts-faults-run.ts): the fault was not made as its model says, or
 * what it left is wrong. */
export const FAILED_NOTE = "FAILED:";
