// Admission on a guarded route, around the route's one Redis call: before it, the gate block the script checks
// (the user's token bucket, the guarding room's queueing mirror and the user's room passes, all in the user's
// slot, and the request's admission token: the ticket it claims and its digest); beside it, in the same round
// trip, the client address's token (address-buckets.ts); after it, the problem or the RateLimit headers, and the
// room's traffic counted in memory (room-traffic-counts.ts). What this process already knows decides without
// Redis: a malformed or missing token while the room queues, backpressure where no room guards, an address whose
// bucket this process knows to be empty. Nothing here adds a round trip, but for a pass of the previous release.
// No signature is checked here: the token's claims are read (strict shape, admission-token.ts) and the script
// admits it only if its digest is the one its pass holds, the digest of the token handed out for the ticket
// (includes/admission-gate.lua). To the intake that is as strong as a signature, and stricter: a token that
// differs in any byte, or was never handed out (even one validly signed), is refused; a hash costs about a
// microsecond, an ES256 check tens. A pass granted by the previous release holds no digest: the script answers
// "unsigned", and the request is sent again with the token's signature verified here (one more round trip, for
// those requests only).
import {
  type AddressTokenAnswer,
  type AdmissionKeys,
  type AdmissionTokens,
  admissionTokenDigest,
  exhaustedRateLimitHeader,
  markReserved,
  rateLimitHeader,
} from "@floodgate/admission";
import type { Config } from "@floodgate/config";
import type { GuardedRouteClass, RouteClass } from "@floodgate/domain";
import type { AdmissionMetrics } from "@floodgate/metrics";
import type { AdmissionCheck, AdmissionInfo, AdmissionRefusal } from "@floodgate/queue";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { roomGateArgument } from "@floodgate/redis-scripts";
import type { FastifyReply, FastifyRequest } from "fastify";
import { ProblemError } from "../errors/error-catalogue.ts";
import { AddressBuckets } from "./address-buckets.ts";
import type { RateLimitBook } from "./rate-limit-book.ts";
import type { RoomDirectory, RoomEntry, Touched } from "./room-directory.ts";
import type { RoomTrafficCounts } from "./room-traffic-counts.ts";

export const ADMISSION_TOKEN_HEADER = "admission-token";

/** Why a request holds no admission that counts, as the metric and the problem's `reason` name it. */
export type RefusalReason =
  | "missing"
  | "malformed"
  | "bad_signature"
  | "expired"
  | "wrong_room"
  | "wrong_user"
  | "revoked"
  | "unknown_ticket";

/** What a guarded route's script answers: accepted and replayed answers carry the buckets' state. */
type ScriptOutcome = { result: string } & ({ admission: AdmissionInfo | null } | { admission?: never });

const SCRIPT_REASONS: Record<string, RefusalReason> = {
  no_token: "missing",
  unknown_ticket: "unknown_ticket",
  // Not the token handed out: to the client, as today, a token whose signature we do not stand behind.
  not_handed_out: "bad_signature",
  unsigned: "bad_signature",
  revoked: "revoked",
  expired: "expired",
};

export class AdmissionControl {
  readonly #config: Config;
  readonly #keys: AdmissionKeys;
  readonly #tokens: AdmissionTokens;
  readonly #book: RateLimitBook;
  readonly #directory: RoomDirectory;
  readonly #metrics: AdmissionMetrics;
  readonly #requestRedis: ScriptedRedis;
  readonly #admissionRedis: ScriptedRedis;
  readonly #parallelCommands: { inc(): void };
  readonly #traffic: RoomTrafficCounts;
  readonly #addresses = new AddressBuckets();

  constructor(deps: {
    config: Config;
    keys: AdmissionKeys;
    tokens: AdmissionTokens;
    book: RateLimitBook;
    directory: RoomDirectory;
    metrics: AdmissionMetrics;
    /** The request connection, where the guarded routes' scripts go (its commands are counted). */
    requestRedis: ScriptedRedis;
    /** The admission connection, where room joins go. */
    admissionRedis: ScriptedRedis;
    /** Counts address tokens sent on the request connection beside a script (same round trip). */
    parallelCommands: { inc(): void };
    /** Guarded requests per room, for the `auto` mode (flushed elsewhere). */
    traffic: RoomTrafficCounts;
  }) {
    this.#config = deps.config;
    this.#keys = deps.keys;
    this.#tokens = deps.tokens;
    this.#book = deps.book;
    this.#directory = deps.directory;
    this.#metrics = deps.metrics;
    this.#requestRedis = deps.requestRedis;
    this.#admissionRedis = deps.admissionRedis;
    this.#parallelCommands = deps.parallelCommands;
    this.#traffic = deps.traffic;
  }

  /**
   * Runs a guarded route's one script call (`send`, on the request connection, given the gate block) with the
   * client address's token taken beside it in the same round trip. The room checked is the one guarding what
   * the request touches (`touched`: a sale's products or coupon), else its route class's (room-directory.ts).
   * Throws the problem when this process can already tell (room, a request spanning two sales' rooms,
   * backpressure, the address's bucket known empty: nothing is sent then). Otherwise the
   * answer is the script's, whatever the address's bucket said: the script may have accepted, and an accepted
   * request is never undone (an empty bucket then makes it an overshoot, counted; docs/api.md, Rate limits).
   */
  admit<T extends ScriptOutcome>(
    request: FastifyRequest,
    routeClass: GuardedRouteClass,
    userId: string,
    send: (check: AdmissionCheck) => Promise<T>,
    touched?: Touched,
  ): Promise<T> {
    let room: RoomEntry | undefined;
    let check: AdmissionCheck;
    let address: Promise<AddressTokenAnswer | null> | null;
    try {
      room = this.#guardingRoom(routeClass, touched);
      check = this.#gateFor(request, routeClass, userId, room);
      address = this.#takeAddressToken(this.#requestRedis, routeClass, request.ip);
    } catch (problem) {
      // A refusal this process can tell is the promise's, as from an async function: callers never see a throw.
      return Promise.reject(problem);
    }
    // No room guards and no address limit (the hot path of a sale's payments): the script's answer is the
    // answer, with no promise around it (issue 30: each layer was a measurable share of a request).
    if (room === undefined && address === null) return send(check);
    return this.#admitGuarded(request, routeClass, check, room, address, send);
  }

  async #admitGuarded<T extends ScriptOutcome>(
    request: FastifyRequest,
    routeClass: GuardedRouteClass,
    check: AdmissionCheck,
    room: RoomEntry | undefined,
    address: Promise<AddressTokenAnswer | null> | null,
    send: (check: AdmissionCheck) => Promise<T>,
  ): Promise<T> {
    // Sent in the same tick as the address's token: both in flight together, one round trip.
    const outcome = this.#sendWithSignatureFallback(request, check, send);
    const roomId = room?.definition.roomId;
    if (roomId !== undefined)
      void outcome.then(
        (answer) => this.#countTraffic(roomId, answer),
        () => {},
      );
    const ticketId = check.args[4];
    if (room && routeClass === "orders" && room.definition.products.length > 0 && ticketId !== "")
      void outcome.then(
        (answer) => {
          if (answer.result === "accepted") this.#reserved(room.definition.roomId, ticketId);
        },
        () => {},
      );
    if (address === null) return outcome;
    this.#parallelCommands.inc();
    const [answer, addressAnswer] = await Promise.all([outcome, address]);
    if (answer.admission === undefined) return answer; // refused by the script: its answer stands
    if (addressAnswer && !addressAnswer.ok) this.#metrics.rateLimitOvershoot.inc({ route_class: routeClass });
    const admission: AdmissionInfo = {
      user: answer.admission?.user ?? null,
      ip: addressAnswer && { remaining: addressAnswer.remaining, resetMs: addressAnswer.resetMs },
    };
    return { ...answer, admission };
  }

  /**
   * `send(check)` at once, and once more with the token's signature verified when the script found the ticket's
   * pass without a digest (granted by the previous release: "unsigned"). A refusal stored nothing, so the second
   * call is the request as if it came now; the address's token is not taken twice.
   */
  async #sendWithSignatureFallback<T extends ScriptOutcome>(
    request: FastifyRequest,
    check: AdmissionCheck,
    send: (check: AdmissionCheck) => Promise<T>,
  ): Promise<T> {
    const answer = await send(check);
    if (!isUnsignedRefusal(answer)) return answer;
    const verdict = this.#tokens.verify(request.headers[ADMISSION_TOKEN_HEADER] as string);
    if (!verdict.ok || verdict.claims.ticketId !== check.args[4]) return answer;
    const [rate, burst, room, userId, ticketId, digest] = check.args;
    return send({ keys: check.keys, args: [rate, burst, room, userId, ticketId, digest, "1"] });
  }

  /** The room this request is checked against; a request touching two sales' rooms is refused here. */
  #guardingRoom(routeClass: GuardedRouteClass, touched: Touched | undefined): RoomEntry | undefined {
    const verdict = this.#directory.guardFor(routeClass, touched);
    if (verdict.spans === undefined) return verdict.room;
    throw new ProblemError("order_spans_rooms", {
      field: "items",
      detail: `this order names products of the rooms ${verdict.spans.join(" and ")}, each sold behind its own waiting room: order them separately`,
      rooms: verdict.spans,
    });
  }

  /**
   * An admitted session of a room selling products has reserved (markReserved: it stops counting against the
   * stock two ticks on). Sent after the answer, not waited for: until it lands (or if it is lost, until the
   * session ends) the session counts twice, so the room admits fewer, never more.
   */
  #reserved(roomId: string, ticketId: string): void {
    markReserved(this.#admissionRedis, this.#keys, roomId, ticketId).catch(() => {});
  }

  /** What the gate counted before: every guarded request within the user's limit, admitted or not. */
  #countTraffic(roomId: string, answer: ScriptOutcome): void {
    if (answer.result !== "rate_limited") this.#traffic.count(roomId);
  }

  /**
   * Runs a room join (`send`, on the admission connection) with the client address's token taken beside it;
   * throws the 429 when this process knows the address's bucket is empty. A join is limited per address only.
   */
  admitJoin<T extends { result: string }>(request: FastifyRequest, send: () => Promise<T>): Promise<T> {
    return this.#withAddressToken(
      request,
      "room-joins",
      send,
      (answer) => answer.result === "joined" || answer.result === "existing",
    );
  }

  /**
   * Runs a public admission check (`check`, POST /v1/rooms/:roomId/admissions/verify) with the client address's
   * token taken beside it; throws the 429 when this process knows the address's bucket is empty. Its caller shows
   * no credential and a check may verify an ES256 signature (tens of µs), so the address's limit bounds what one
   * address can make this process do. As for a join, an answer sent while the bucket turned out empty stands.
   */
  admitCheck<T>(request: FastifyRequest, check: () => Promise<T>): Promise<T> {
    return this.#withAddressToken(request, "admission-checks", check, () => true);
  }

  /**
   * `run` with the client address's token taken beside it, for a route class limited per address only. Async, so
   * the 429 thrown when this process knows the bucket is empty (or a throw of `run`) is a rejection. An answer
   * sent while the bucket turned out empty stands; it is counted as an overshoot where `overshoots` says it
   * did something.
   */
  async #withAddressToken<T>(
    request: FastifyRequest,
    routeClass: "room-joins" | "admission-checks",
    run: () => Promise<T>,
    overshoots: (answer: T) => boolean,
  ): Promise<T> {
    const address = this.#takeAddressToken(this.#admissionRedis, routeClass, request.ip);
    const outcome = run();
    if (address === null) return outcome;
    const [answer, addressAnswer] = await Promise.all([outcome, address]);
    if (addressAnswer && !addressAnswer.ok && overshoots(answer))
      this.#metrics.rateLimitOvershoot.inc({ route_class: routeClass });
    return answer;
  }

  /** The side command for the address's token, null without an address limit; throws the 429 when the view is empty. */
  #takeAddressToken(
    redis: ScriptedRedis,
    routeClass: RouteClass,
    ip: string,
  ): Promise<AddressTokenAnswer | null> | null {
    const bucket = this.#book.limits(routeClass).ip;
    if (bucket[0] <= 0) return null;
    const take = this.#addresses.take(redis, this.#keys.ipBucket(routeClass, ip), bucket);
    if ("refusedForMs" in take) throw this.rateLimitProblem(routeClass, "ip", take.refusedForMs);
    return take.sent;
  }

  /**
   * The gate block for this request's script call, or a ProblemError when this process can already tell: the
   * guarding room queues and the request holds no valid admission, or the backlog is too long and no room
   * guards the class.
   */
  #gateFor(
    request: FastifyRequest,
    routeClass: GuardedRouteClass,
    userId: string,
    room: RoomEntry | undefined,
  ): AdmissionCheck {
    const backlog = this.#directory.backlog;
    if (!room && backlog.backpressure) {
      this.#metrics.overloadRefusals.inc({ route_class: routeClass });
      const wait = Number.isFinite(backlog.drainSeconds)
        ? Math.ceil(backlog.drainSeconds - this.#config.backpressureSeconds)
        : 10;
      throw new ProblemError("overloaded", {
        detail: `${backlog.backlog} operations are queued, more than the workers drain in ${this.#config.backpressureSeconds} s; nothing was stored`,
        retryAfterSeconds: Math.min(60, Math.max(1, wait)),
      });
    }
    const limits = this.#book.limits(routeClass);
    // No room: the gate checks the user's bucket alone (a payment in a sale's peak), built with no more than that.
    if (room === undefined) {
      const placeholder = this.#keys.userSlotPlaceholder(userId);
      return {
        keys: [this.#keys.userBucket(routeClass, userId), placeholder, placeholder],
        args: [limits.user[0], limits.user[1], "0", userId, "", "", "0"],
      };
    }
    let ticketId = "";
    let digest = "";
    const presented = this.#presentedTicket(request, routeClass, room, userId);
    if (typeof presented === "string") {
      if (room.stats.queueing) throw this.waitingRoomProblem(room.definition.roomId, presented);
    } else {
      ticketId = presented.ticketId;
      digest = presented.digest;
    }
    const roomId = room.definition.roomId;
    // A one-shot room's token is consumed by the request accepted with it (includes/one-shot-pass.lua); a room
    // whose sessions end when idle has the gate record each use and refuse an idle token (session-idle.lua).
    const idleSeconds = room.definition.sessionIdleSeconds ?? null;
    const roomArgument = roomGateArgument({
      oneShot: room.definition.admission === "one-shot",
      idleMs: idleSeconds === null ? null : idleSeconds * 1000,
    });
    return {
      keys: [
        this.#keys.userBucket(routeClass, userId),
        this.#keys.roomGateFor(roomId, userId),
        this.#keys.roomPasses(roomId, userId),
      ],
      args: [...limits.user, roomArgument, userId, ticketId, digest, "0"],
      // An order carries its session to the worker, which ends it with the order (room-sessions.ts). Its
      // ticket is proven: by the script's digest check while the room queues, by the signature otherwise
      // (#presentedTicket), so a made-up token cannot name another shopper's session for the worker to end.
      ...(ticketId !== "" ? { session: { roomId, ticketId } } : {}),
    };
  }

  /**
   * The ticket the request's admission token claims for this room and user, and the token's digest, which the
   * script compares with the pass's; or why the token does not count. The signature is checked only where no
   * pass will be: an order while this process sees its room not queueing (no crowd, so the check's cost is off
   * the peak), whose ticket is marked reserved (#reserved) and whose session the worker ends with the order,
   * though the script did not look at its pass.
   */
  #presentedTicket(
    request: FastifyRequest,
    routeClass: GuardedRouteClass,
    room: RoomEntry,
    userId: string,
  ): { ticketId: string; digest: string } | RefusalReason {
    const header = request.headers[ADMISSION_TOKEN_HEADER];
    if (typeof header !== "string" || header === "") return "missing";
    const unchecked = !room.stats.queueing && routeClass === "orders";
    const verdict = unchecked ? this.#tokens.verify(header) : this.#tokens.read(header);
    if (!verdict.ok) return verdict.reason;
    if (verdict.claims.roomId !== room.definition.roomId) return "wrong_room";
    if (verdict.claims.userId !== userId) return "wrong_user";
    return { ticketId: verdict.claims.ticketId, digest: admissionTokenDigest(header) };
  }

  waitingRoomProblem(roomId: string, reason: RefusalReason): ProblemError {
    this.#metrics.admissionRefusals.inc({ reason });
    return new ProblemError("waiting_room_required", {
      detail: `room ${roomId} is queueing: join it at the joinUrl and send the admission token it gives as Admission-Token (${reason.replaceAll("_", " ")})`,
      field: "Admission-Token",
      roomId,
      joinUrl: `/v1/rooms/${roomId}/tickets`,
      reason,
    });
  }

  /** The problem for a refusal the script decided (`touched` as given to admit). */
  refusalProblem(routeClass: GuardedRouteClass, refusal: AdmissionRefusal, touched?: Touched): ProblemError {
    if (refusal.result === "waiting_room_required") {
      const verdict = this.#directory.guardFor(routeClass, touched);
      const room = verdict.spans === undefined ? verdict.room : undefined;
      if (refusal.reason === "used") return this.#admissionUsedProblem(room?.definition.roomId ?? "unknown");
      return this.waitingRoomProblem(
        room?.definition.roomId ?? "unknown",
        SCRIPT_REASONS[refusal.reason] ?? "missing",
      );
    }
    return this.rateLimitProblem(routeClass, refusal.scope, refusal.retryAfterMs);
  }

  /** A one-shot room's token already spent: a new one takes a new place in line. */
  #admissionUsedProblem(roomId: string): ProblemError {
    this.#metrics.admissionRefusals.inc({ reason: "used" });
    return new ProblemError("admission_used", {
      detail: `room ${roomId} admits one request per admission: this token was already used by an accepted request (a retry of that request with its Idempotency-Key gets its answer)`,
      field: "Admission-Token",
      roomId,
      joinUrl: `/v1/rooms/${roomId}/tickets`,
      reason: "used",
    });
  }

  rateLimitProblem(routeClass: RouteClass, scope: "user" | "ip", retryAfterMs: number): ProblemError {
    this.#count(routeClass, scope, "limited");
    const headers: Record<string, string> = {
      RateLimit: exhaustedRateLimitHeader(routeClass, scope, retryAfterMs),
    };
    const policy = this.#book.limits(routeClass).header;
    if (policy) headers["RateLimit-Policy"] = policy;
    return new ProblemError("rate_limited", {
      detail: `over the ${scope === "ip" ? "client address's" : "user's"} limit for ${routeClass}; retry in ${Math.ceil(retryAfterMs / 1000)} s`,
      field: scope === "user" ? "userId" : "client address",
      retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
      headers,
    });
  }

  /** RateLimit-Policy and RateLimit on an accepted answer. */
  accepted(reply: FastifyReply, routeClass: RouteClass, info: AdmissionInfo | null): void {
    if (!info) return;
    const policy = this.#book.limits(routeClass).header;
    if (policy === null) return;
    // Lowercase, as Fastify stores them: a mixed-case name costs a new string and a string-table lookup per answer.
    reply.header("ratelimit-policy", policy);
    const current = rateLimitHeader(routeClass, info);
    if (current) reply.header("ratelimit", current);
    if (info.user) this.#count(routeClass, "user", "allowed");
    if (info.ip) this.#count(routeClass, "ip", "allowed");
  }

  #count(routeClass: RouteClass, scope: "user" | "ip", decision: "allowed" | "limited") {
    this.#metrics.countRateLimitDecision(routeClass, scope, decision);
  }
}

/** The script's answer that the ticket's pass holds no digest and the token's signature was not verified. */
function isUnsignedRefusal(answer: ScriptOutcome): boolean {
  const refusal = answer as { result: string; reason?: string };
  return refusal.result === "waiting_room_required" && refusal.reason === "unsigned";
}
