// A waiting room's modes, written once: the admin route's schema validates them and the admission package
// acts on them.

/** off: never queues; auto: queues under pressure (backlog, or traffic above admitPerSecond); on: queues. */
export const ROOM_MODES = ["off", "auto", "on"] as const;
export type RoomMode = (typeof ROOM_MODES)[number];
