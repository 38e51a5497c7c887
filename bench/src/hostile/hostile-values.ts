// The hostile strings every field and header gets, one at a time: the control characters and 10 KB
// strings, plus the neighbours a parser trips on (NUL, DEL, a lone surrogate, bytes above ASCII).
const CONTROL_CHARACTERS = `${Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join("")}\u007f`;
const TEN_KB = 10 * 1024;

/** For JSON fields and path parameters: text, encoded by JSON or percent-encoding (or sent raw, see below). */
export const HOSTILE_FIELD_VALUES: Record<string, string> = {
  "control characters": CONTROL_CHARACTERS,
  "NUL inside": "ab\u0000cd",
  "10 KB string": "x".repeat(TEN_KB),
  "10 KB of control characters": "\u0001\u001b".repeat(TEN_KB / 2),
  "lone surrogate": "\ud800",
  "bidi override and zero width": "a\u202e\u200bb",
};

/** For header values: bytes (latin1), since a header is bytes. CR and LF alone are framing; see HOSTILE_HEADER_FRAMING. */
export const HOSTILE_HEADER_VALUES: Record<string, string> = {
  "control characters": CONTROL_CHARACTERS.replace(/[\r\n]/g, ""),
  "NUL inside": "ab\u0000cd",
  DEL: "a\u007fb",
  "10 KB string": "x".repeat(TEN_KB),
  "10 KB of control characters": "\u0001".repeat(TEN_KB),
  "bytes above ASCII": Array.from({ length: 128 }, (_, i) => String.fromCharCode(0x80 + i)).join(""),
};

/** A bare CR or LF inside a value: a lenient parser would read a second header (request smuggling's start). */
export const HOSTILE_HEADER_FRAMING: Record<string, string> = {
  "bare LF": "a\nX-Injected: 1",
  "bare CR": "a\rX-Injected: 1",
};

/** Percent-encodes text for a path; a lone surrogate (which encodeURIComponent refuses) as its UTF-8 bytes. */
export function pathSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return [...Buffer.from(value, "utf8")].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
  }
}
