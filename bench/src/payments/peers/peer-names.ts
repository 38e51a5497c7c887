// The comparison targets `bench payments --max --generator wrk --peer <name>` can start beside Floodgate. A list
// of its own, so the options can name them without loading the peers' dependencies (BullMQ).
export const PEER_NAMES = ["raw", "bullmq"] as const;
export type PeerName = (typeof PEER_NAMES)[number];
