import { describe, expect, it } from "vitest";
import { ownedNames, ownerOf } from "../src/faults/hosts/host-names.ts";

describe("test host names", () => {
  it("name their owner, in links that fit Linux's 15 characters", () => {
    const names = ownedNames(4_194_304);
    const made = [
      names.namespace("redis"),
      names.bridge,
      names.rootLink(12),
      names.peerLink(12),
      `${names.folder("pg")}Ab12Cd`,
    ];
    for (const name of made) expect(ownerOf(name)).toBe(4_194_304);
    for (const link of [names.bridge, names.rootLink(12), names.peerLink(12)]) {
      expect(link.length).toBeLessThanOrEqual(15);
    }
  });

  it("leave alone what they did not make, so cleanup never removes a stranger's files or links", () => {
    for (const name of [
      "fgh-test-backup.ts",
      "fgh-abc-eth0",
      "floodgate-host-x-redis",
      "eth0",
      "fgh-1-h1x",
    ]) {
      expect(ownerOf(name)).toBeNull();
    }
  });
});
