import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decodeCanonicalBase64url, isCanonicalBase64url } from "./canonical-base64url.ts";

describe("canonical base64url", () => {
  it("gives back the bytes of the one spelling of their exact length", () => {
    for (const length of [32, 48, 64]) {
      const bytes = randomBytes(length);
      const text = bytes.toString("base64url");
      expect(isCanonicalBase64url(text)).toBe(true);
      expect(decodeCanonicalBase64url(text, length)).toEqual(bytes);
      expect(decodeCanonicalBase64url(text, length + 1)).toBeUndefined();
    }
  });

  it("refuses stray characters, padding, unused bits set and standard base64's + and /", () => {
    // "___…_8": the last character, 8 (111100), carries four bits and two unused ones; 9 (111101) reads the same.
    const text = Buffer.alloc(32, 0xff).toString("base64url");
    for (const respelled of [`${text}=`, `!${text}`, `${text.slice(0, -1)}9`, text.replaceAll("_", "/")]) {
      expect(isCanonicalBase64url(respelled), respelled).toBe(false);
      expect(decodeCanonicalBase64url(respelled, 32), respelled).toBeUndefined();
    }
  });
});
