// The lane band's width is written twice, in room-lanes.lua (the scripts) and room-lanes.ts (the intake's
// socket positions): they must agree, or a lane ticket's pushed place would count another lane's tickets.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { LANE_BAND, laneBand } from "../src/index.ts";

describe("the lane band", () => {
  it("is the same width in the scripts and in TypeScript", () => {
    const lua = readFileSync(new URL("../src/commands/includes/room-lanes.lua", import.meta.url), "utf8");
    expect(Number(/^local LANE_BAND = (\d+)/m.exec(lua)?.[1])).toBe(LANE_BAND);
  });

  it("puts the default queue (and a bypass before it) in band 0, lane i in band i", () => {
    expect(laneBand(-3)).toBe(0);
    expect(laneBand(17)).toBe(0);
    expect(laneBand(2 * LANE_BAND + 5)).toBe(2);
  });
});
