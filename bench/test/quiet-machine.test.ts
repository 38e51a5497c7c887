import { describe, expect, it } from "vitest";
import { waitForQuietMachine } from "../src/harness/quiet-machine.ts";

describe("waitForQuietMachine", () => {
  it("starts at once on a quiet machine", async () => {
    let reads = 0;
    const waited = await waitForQuietMachine(60_000, () => {
      reads++;
      return 0.2;
    });
    expect(waited).toBe(0);
    expect(reads).toBe(1);
  });

  it("gives up after its limit when the machine stays busy", async () => {
    let reads = 0;
    await waitForQuietMachine(1, () => {
      reads++;
      return 3;
    });
    // Checked, then waited once, then found over the limit.
    expect(reads).toBeGreaterThanOrEqual(2);
  });
});
