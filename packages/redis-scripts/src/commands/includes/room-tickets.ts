// A waiting room's keys and its tickets as the room's scripts answer them (room-tickets.lua, beside this, keeps
// the record). Every key of a room shares its hash tag, {room-<id>}: one Redis Cluster slot. Each room script's
// wrapper takes the keys it reads from RoomKeys (packages/admission admission-keys.ts builds them).

export interface RoomKeys {
  /** {room-<id>}:config: mode, admitPerSecond, sessionSeconds, abandonSeconds, startsAt, endsAt, method, ... */
  configKey: string;
  /** {room-<id>}:state: queueing, seq, shuffled, admittedTotal, leaderEpoch, the traffic counts, ... */
  stateKey: string;
  /** {room-<id>}:queue: ticket -> sequence number (FIFO). */
  queueKey: string;
  /** {room-<id>}:early: the pre-queue, ticket -> its round (joins before startsAt). */
  earlyKey: string;
  /** {room-<id>}:tickets: ticket -> record (room-tickets.lua). */
  ticketsKey: string;
  /** {room-<id>}:users: userId -> ticket. */
  usersKey: string;
  /** {room-<id>}:seen: ticket -> last heartbeat (waiting and pre-queue tickets). */
  seenKey: string;
  /** {room-<id>}:sessions: ticket -> session end (admitted tickets). */
  sessionsKey: string;
  /** {room-<id>}:admits: epoch second -> tickets admitted in it. */
  admitsKey: string;
  /** {room-<id>}:ended: tickets that ended (expired, abandoned, revoked), scored by when; forgotten later. */
  endedKey: string;
  /** {room-<id>}:order: a closed pre-queue round's tickets in the order the leader computed, moved from the head. */
  orderKey: string;
  /** {room-<id>}:shuffle: the last published shuffle proof (commitment, seed, listHash, ...). */
  proofKey: string;
  /** {room-<id>}:shuffle-tickets: that proof's ticket ids, sorted. */
  proofTicketsKey: string;
  /** {room-<id>}:unreserved: ticket -> session end, admitted sessions of a room selling products that have not reserved yet. */
  unreservedKey: string;
  /** {room-<id>}:events: the shop's room events (room-events.lua), a stream the workers drain. */
  eventsKey: string;
}

/** The keys a room's join and tick take first, in their order (admit-room-13.lua adds endedKey, orderKey, unreservedKey, eventsKey). */
export type QueueingRoomKeys = Omit<
  RoomKeys,
  "endedKey" | "orderKey" | "proofKey" | "proofTicketsKey" | "unreservedKey" | "eventsKey"
>;

export const queueingRoomKeys = (keys: QueueingRoomKeys): string[] => [
  keys.configKey,
  keys.stateKey,
  keys.queueKey,
  keys.earlyKey,
  keys.ticketsKey,
  keys.usersKey,
  keys.seenKey,
  keys.sessionsKey,
  keys.admitsKey,
];

/** A ticket record's status (room-tickets.lua). */
export const TICKET_STATUSES = ["early", "waiting", "admitted", "expired", "abandoned", "revoked"] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

/** A ticket's place and times as join-room-11.lua and read-ticket-4.lua answer them. */
export interface TicketReading {
  status: TicketStatus;
  /** 1-based place in the queue; for a pre-queue ticket, the size of its pre-queue round; null otherwise. */
  position: number | null;
  /** Epoch ms; null when not known (yet). */
  joinedAt: number | null;
  admittedAt: number | null;
  expiresAt: number | null;
  /** A waiting ticket's lane (its band: 0 the default queue, i the room's i-th lane); absent otherwise. */
  band?: number;
}

/** A number the scripts answer as a string, "" when unknown. */
export const optionalNumber = (value: string | undefined): number | null => (value ? Number(value) : null);

/** The ticket fields of a reply, in the scripts' order: status, position, joinedAt, admittedAt, expiresAt, band. */
export function ticketReading(
  status: string | undefined,
  position: string | undefined,
  joinedAt: string | undefined,
  admittedAt: string | undefined,
  expiresAt: string | undefined,
  band?: string,
): TicketReading {
  const reading: TicketReading = {
    status: status as TicketStatus,
    position: optionalNumber(position),
    joinedAt: optionalNumber(joinedAt),
    admittedAt: optionalNumber(admittedAt),
    expiresAt: optionalNumber(expiresAt),
  };
  const lane = optionalNumber(band);
  if (lane !== null) reading.band = lane;
  return reading;
}
