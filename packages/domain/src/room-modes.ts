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

/**
 * Who the leader admits next. fifo: the head of the queue; random: any waiting ticket, each equally likely;
 * reject: nobody, and every join is refused with the room's message (an incident switch).
 */
export const ROOM_METHODS = ["fifo", "random", "reject"] as const;
export type RoomMethod = (typeof ROOM_METHODS)[number];

/** Who may join. anyone: a shopper's customer token or the shop's server key; server: the server key only. */
export const ROOM_JOINS = ["anyone", "server"] as const;
export type RoomJoins = (typeof ROOM_JOINS)[number];
