export { type AddressTokenAnswer, takeAddressToken } from "./address-bucket.ts";
export { AdmissionKeys, type RoomKeySet } from "./admission-keys.ts";
export { AdmissionLeader, type AdmissionLeaderOptions, LEASE_MS, TICK_MS } from "./admission-leader.ts";
export {
  type AdmissionClaims,
  type AdmissionTokens,
  Hs256AdmissionTokens,
  type TokenRejection,
  type TokenVerdict,
  type TypedVerdict,
} from "./admission-token.ts";
export { ADMISSION_TOKEN_DIGEST_CHARS, admissionTokenDigest } from "./admission-token-digest.ts";
export {
  AUTO_ADMIT_FLOOR_PER_SECOND,
  AUTO_ADMIT_START_PER_SECOND,
  AUTO_TARGET_DRAIN_SECONDS,
  autoRoomShare,
  nextAutoAdmitRate,
} from "./auto-admit-rate.ts";
export { BacklogGauge, type BacklogReading } from "./backlog-gauge.ts";
export {
  type AdmissionSigningKey,
  Es256AdmissionTokens,
  type PublicAdmissionJwk,
  type VerifiedAdmissionCache,
} from "./es256-admission-tokens.ts";
export {
  DEFAULT_JOIN_PASS_SECONDS,
  JOIN_PASS_TYP,
  type JoinPassClaims,
  type JoinPassKind,
  type JoinPassVerdict,
  joinPassKind,
  MAX_JOIN_PASS_SECONDS,
  MIN_JOIN_PASS_SECONDS,
  mintJoinPass,
  verifyJoinPass,
} from "./join-pass.ts";
export { holdLeaderLease } from "./leader-lease.ts";
export { type OrderOutcome, orderClosedRound } from "./pre-queue-order.ts";
export {
  clearRateLimitOverride,
  readEffectiveRateLimits,
  writeRateLimitOverride,
} from "./rate-limit-overrides.ts";
export {
  DEFAULT_ABANDON_SECONDS,
  isRoomClosed,
  isSaleRoom,
  parseRoomDefinition,
  type RoomDefinition,
  type RoomLane,
  readRoomDefinition,
  writeRoomDefinition,
} from "./room-definition.ts";
export { RoomDefinitionBusyError, withRoomDefinitionLock } from "./room-definition-lock.ts";
export { writeRoomGate } from "./room-gate.ts";
export { endRoomIdleSessions, IDLE_LOOKS_PER_TICK } from "./room-idle-sessions.ts";
export {
  grantPass,
  type PassStanding,
  type PassTicket,
  readPassStanding,
  revokePass,
} from "./room-passes.ts";
export { endOrderSessions } from "./room-sessions.ts";
export {
  etaSeconds,
  laneEtaSeconds,
  MIN_MEASURED_SECONDS,
  type RoomStats,
  readRoomStats,
} from "./room-stats.ts";
export { markReserved, type RoomStock, readRoomStock } from "./room-stock.ts";
export {
  type RoomTick,
  TICK_STEP_LIMIT,
  type TickOptions,
  type TickOutcome,
  tickRoom,
} from "./room-tick.ts";
export {
  type JoinOutcome,
  joinRoom,
  newTicketId,
  type RevokedTicket,
  readTicket,
  revokeTicket,
  TICKET_ID_PATTERN,
  TICKET_STATUSES,
  type TicketState,
  type TicketStatus,
} from "./room-tickets.ts";
export { countRoomTraffic } from "./room-traffic.ts";
export {
  readShuffleProof,
  readShuffleProofTickets,
  type ShuffleProofReading,
  type ShuffleProofStatus,
} from "./shuffle-proof.ts";
export { newShuffleSeed, type ShuffleSeed } from "./shuffle-seed.ts";
export { ThrottledWarning } from "./throttled-warning.ts";
export {
  bucketArgs,
  exhaustedRateLimitHeader,
  rateLimitHeader,
  rateLimitPolicyHeader,
} from "./token-bucket.ts";
