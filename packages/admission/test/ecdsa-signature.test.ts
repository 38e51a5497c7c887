// ES256 signatures made from the bare key's DER: each one verifies as the JWS form (r || s) with Node's own
// ieee-p1363 check, short and high-bit coordinates included, and a malformed DER is refused.
import { generateKeyPairSync, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { derToJoseSignature, signEs256 } from "../src/ecdsa-signature.ts";

describe("ES256 signatures from DER", () => {
  it("verify as ieee-p1363, for thousands of inputs (r or s shorter than 32 bytes or with the high bit set among them)", () => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    let padded = 0;
    for (let i = 0; i < 3000; i++) {
      const input = `header.payload-${i}`;
      const signature = signEs256(input, privateKey);
      expect(signature.length).toBe(64);
      if (signature[0] === 0 || signature[32] === 0) padded++;
      const holds = verify(
        "sha256",
        Buffer.from(input),
        { key: publicKey, dsaEncoding: "ieee-p1363" },
        signature,
      );
      expect(holds, `signature ${i}`).toBe(true);
    }
    // About 1 in 128 signatures has a coordinate under 32 bytes: 3,000 tries meet them.
    expect(padded).toBeGreaterThan(0);
  });

  it("refuses what is not a DER sequence of two integers", () => {
    expect(() => derToJoseSignature(Buffer.from([0x31, 0x00]))).toThrow(/SEQUENCE/);
    expect(() => derToJoseSignature(Buffer.from([0x30, 0x04, 0x03, 0x01, 0x01, 0x02]))).toThrow(/INTEGER/);
    const tooLong = Buffer.concat([Buffer.from([0x30, 0x25, 0x02, 0x21, 0x01]), Buffer.alloc(32, 1)]);
    expect(() => derToJoseSignature(tooLong)).toThrow(/longer than 32/);
  });
});
