import { BUCKET_COUNT } from "@floodgate/domain";

/** FNV-1a over the UTF-16 code units: cheap, stable across processes and languages, and spreads short ids well. */
export function bucketForUser(userId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < userId.length; i++) {
    hash ^= userId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % BUCKET_COUNT;
}
