// Crockford base32 (no I, L, O, U) for the ids we mint: time-ordered when the time comes first, and safe in
// URLs, Redis keys and file names.
//
// Strings are made whole from character codes, not a character at a time: each `+=` of one character made a
// string of its own, and an id was some thirty of them (issue 30: the intake mints one to three per request;
// a microbenchmark put the id and its tail at about half the time this way).
import { randomFillSync } from "node:crypto";

export const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const DECODE = new Map([...ALPHABET].map((char, index) => [char, index]));
const ALPHABET_CODES: readonly number[] = Array.from(ALPHABET, (char) => char.charCodeAt(0));

// One array of codes per length, reused: a string is made from it by one String.fromCharCode.
const codeArrays: number[][] = [];

/** A reused array of `length` character codes: fill it, then make its string with stringOfCodes. */
export function codeArray(length: number): number[] {
  let codes = codeArrays[length];
  if (codes === undefined) {
    codes = new Array<number>(length).fill(0);
    codeArrays[length] = codes;
  }
  return codes;
}

/** The string of a codeArray's codes (one allocation). */
export const stringOfCodes = (codes: number[]): string => String.fromCharCode.apply(null, codes);

/** The code of ALPHABET's character for `value` (0-31). */
export const base32Code = (value: number): number => ALPHABET_CODES[value & 31]!;

export function encodeBase32(value: number, length: number): string {
  const codes = codeArray(length);
  for (let i = length - 1; i >= 0; i--) {
    codes[i] = ALPHABET_CODES[value % 32]!;
    value = Math.floor(value / 32);
  }
  return stringOfCodes(codes);
}

export function decodeBase32(text: string): number {
  let value = 0;
  for (const char of text) value = value * 32 + (DECODE.get(char) ?? 0);
  return value;
}

// One system call fills randomness for ~290 ids: a call per id cost the intake 5% of its CPU under load.
const RANDOM_POOL = Buffer.alloc(4096);
let poolOffset = RANDOM_POOL.length;

export function randomBase32(length: number): string {
  if (poolOffset + length > RANDOM_POOL.length) {
    randomFillSync(RANDOM_POOL);
    poolOffset = 0;
  }
  const codes = codeArray(length);
  for (let i = 0; i < length; i++) codes[i] = ALPHABET_CODES[RANDOM_POOL[poolOffset + i]! & 31]!;
  poolOffset += length;
  return stringOfCodes(codes);
}
