// Request ids the intake mints (request-ids/uuid-v4.ts): RFC 9562 version 4 UUIDs, never repeated.
import { describe, expect, it } from "vitest";
import { uuidV4 } from "../src/request-ids/uuid-v4.ts";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("uuidV4", () => {
  // More than one pool's worth (256 ids), so the refill is crossed several times.
  const ids = Array.from({ length: 5000 }, () => uuidV4());

  it("is a version 4, variant 10 UUID in lower-case hex", () => {
    for (const id of ids) expect(id).toMatch(UUID_V4);
  });

  it("never repeats", () => {
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("varies every random hex digit", () => {
    for (let position = 0; position < 36; position++) {
      if ([8, 13, 14, 18, 23].includes(position)) continue; // dashes and the version digit
      const seen = new Set(ids.map((id) => id[position]));
      // The variant digit holds 2 random bits; every other digit 4.
      expect(seen.size).toBe(position === 19 ? 4 : 16);
    }
  });
});
