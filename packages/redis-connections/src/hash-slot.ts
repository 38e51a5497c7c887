// The Redis Cluster hash slot of a key, as the server computes it (CLUSTER KEYSLOT): CRC16 (XMODEM) of the key,
// or of its {tag} when it holds a non-empty one, modulo 16384. Here so the intake can tell which master a slot
// is on from the cluster client's slot map (replica-wait.ts) without a round trip.
export const HASH_SLOTS = 16_384;

export function hashSlot(key: string): number {
  let hashed = key;
  const open = key.indexOf("{");
  if (open !== -1) {
    const close = key.indexOf("}", open + 1);
    if (close > open + 1) hashed = key.slice(open + 1, close);
  }
  let crc = 0;
  for (const byte of Buffer.from(hashed)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % HASH_SLOTS;
}
