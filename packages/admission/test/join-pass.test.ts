// Join passes with both signers (ES256, the default, and HS256 when selected): one minted verifies for its user
// and room only, not once expired, not altered, not with another key; and a join pass is never an admission
// token, nor an admission token a join pass (each has its own JWT typ).
import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  type AdmissionTokens,
  Es256AdmissionTokens,
  Hs256AdmissionTokens,
  mintJoinPass,
  verifyJoinPass,
} from "../src/index.ts";

function es256(kid: string): Es256AdmissionTokens {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return new Es256AdmissionTokens({
    keys: [{ kid, privateJwk: privateKey.export({ format: "jwk" }), signsFrom: 0 }],
  });
}

const signers: [string, () => AdmissionTokens, () => AdmissionTokens][] = [
  ["ES256", () => es256("k1"), () => es256("k1")],
  [
    "HS256",
    () => new Hs256AdmissionTokens("a-secret-of-thirty-two-characters!"),
    () => new Hs256AdmissionTokens("another-secret-of-thirty-two-chars"),
  ],
];
const now = Date.parse("2026-11-29T10:00:00Z");
const alice = { roomId: "drop", userId: "alice" };

describe.each(signers)("join passes signed %s", (_, signer, otherSigner) => {
  const tokens = signer();
  const { token } = mintJoinPass(
    tokens,
    { ...alice, pass: { kind: "lane", lane: "members" }, expiresInSeconds: 300 },
    now,
  );

  it("verify for the user and room they name, with their kind and end", () => {
    expect(verifyJoinPass(tokens, token, alice, now + 1000)).toEqual({
      ok: true,
      claims: { ...alice, pass: { kind: "lane", lane: "members" }, expiresAt: now + 300_000 },
    });
  });

  it("are refused for another user or room, once expired, altered, or under another key", () => {
    expect(verifyJoinPass(tokens, token, { ...alice, userId: "bob" }, now)).toMatchObject({
      ok: false,
      reason: "mismatch",
    });
    expect(verifyJoinPass(tokens, token, { ...alice, roomId: "other" }, now)).toMatchObject({
      ok: false,
      reason: "mismatch",
    });
    expect(verifyJoinPass(tokens, token, alice, now + 300_000)).toMatchObject({
      ok: false,
      reason: "expired",
    });
    const [header, payload, signature] = token.split(".");
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
    const bypass = Buffer.from(JSON.stringify({ ...claims, kind: "bypass" })).toString("base64url");
    expect(verifyJoinPass(tokens, `${header}.${bypass}.${signature}`, alice, now)).toMatchObject({
      ok: false,
      reason: "invalid",
    });
    expect(verifyJoinPass(otherSigner(), token, alice, now)).toMatchObject({ ok: false, reason: "invalid" });
  });

  it("are no admission tokens, and admission tokens no join passes", () => {
    expect(tokens.verify(token, now)).toMatchObject({ ok: false });
    const admission = tokens.issue({
      ...alice,
      ticketId: "tkt_01M8000000AAAAAAAAAAAAAAAA",
      admittedAt: now,
      expiresAt: now + 60_000,
    });
    expect(verifyJoinPass(tokens, admission, alice, now)).toMatchObject({ ok: false, reason: "invalid" });
  });
});
