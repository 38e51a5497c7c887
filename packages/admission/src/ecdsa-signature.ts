// ECDSA P-256 signatures as JWS wants them (RFC 7518 3.4: r and s, 32 bytes each) from the DER that OpenSSL gives.
// Node can give them directly (`dsaEncoding: "ieee-p1363"`), but only through the options-object form of
// crypto.sign, which costs more than the signature: 44-46 us a token against 21 us for the bare key object and
// this conversion (measured on the 2-vCPU bench machine), and a sale signs one token per admission.
import { type KeyObject, sign } from "node:crypto";

const COORDINATE_BYTES = 32;

/** `input` signed with the P-256 key, as the 64 bytes r || s. */
export function signEs256(input: string, privateKey: KeyObject): Buffer {
  return derToJoseSignature(sign("sha256", Buffer.from(input), privateKey));
}

/** DER `SEQUENCE { INTEGER r, INTEGER s }` to r || s, each left-padded to 32 bytes. */
export function derToJoseSignature(der: Buffer): Buffer {
  if (der[0] !== 0x30) throw new Error("an ECDSA signature must be a DER SEQUENCE");
  // A P-256 signature's sequence is at most 72 bytes: its length fits the short form.
  let offset = 2;
  const out = Buffer.alloc(2 * COORDINATE_BYTES);
  for (let i = 0; i < 2; i++) {
    if (der[offset] !== 0x02) throw new Error("an ECDSA signature's r and s must be DER INTEGERs");
    const length = der[offset + 1]!;
    let value = der.subarray(offset + 2, offset + 2 + length);
    // A leading zero keeps a high-bit integer positive in DER; r and s themselves are 32 bytes at most.
    while (value.length > COORDINATE_BYTES && value[0] === 0) value = value.subarray(1);
    if (value.length > COORDINATE_BYTES) throw new Error("an ECDSA P-256 coordinate is longer than 32 bytes");
    value.copy(out, i * COORDINATE_BYTES + (COORDINATE_BYTES - value.length));
    offset += 2 + length;
  }
  return out;
}
