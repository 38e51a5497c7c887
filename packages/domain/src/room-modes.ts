// A waiting room's modes, written once: the admin route's schema validates them and the admission package
// acts on them.

/** off: never queues; auto: queues under pressure (backlog, or traffic above admitPerSecond); on: queues. */
export const ROOM_MODES = ["off", "auto", "on"] as const;
export type RoomMode = (typeof ROOM_MODES)[number];

/**
 * How long an admission token serves. session: any number of guarded requests until the session ends;
 * one-shot: the one guarded request accepted with it, after which it is refused (admission_used).
 */
export const ROOM_ADMISSIONS = ["session", "one-shot"] as const;
export type RoomAdmission = (typeof ROOM_ADMISSIONS)[number];
