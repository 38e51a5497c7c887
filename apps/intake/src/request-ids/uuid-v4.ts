// Random (version 4) UUIDs for request ids, made as one string from character codes. crypto.randomUUID pools
// its randomness too, but joins the id from twenty short strings; this takes about two thirds of its time
// (issue 30: every request the intake answers gets one unless the caller sent its own).
import { randomFillSync } from "node:crypto";

/** 256 ids' randomness per system call. */
const POOL = Buffer.alloc(16 * 256);
let poolOffset = POOL.length;

const HEX_CODES: readonly number[] = Array.from("0123456789abcdef", (char) => char.charCodeAt(0));
const DASH = "-".charCodeAt(0);
// xxxxxxxx-xxxx-4xxx-Nxxx-xxxxxxxxxxxx: the dashes never move, the rest is overwritten at every id.
const codes = new Array<number>(36).fill(DASH);

export function uuidV4(): string {
  if (poolOffset === POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  let at = 0;
  for (let i = 0; i < 16; i++) {
    let byte = POOL[poolOffset + i]!;
    // RFC 9562: the version (0100) in byte 6's high nibble, the variant (10) in byte 8's two high bits.
    if (i === 6) byte = (byte & 0x0f) | 0x40;
    else if (i === 8) byte = (byte & 0x3f) | 0x80;
    if (at === 8 || at === 13 || at === 18 || at === 23) at++;
    codes[at++] = HEX_CODES[byte >> 4]!;
    codes[at++] = HEX_CODES[byte & 15]!;
  }
  poolOffset += 16;
  return String.fromCharCode.apply(null, codes);
}
