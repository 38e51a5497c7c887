// Room passes granted by this process: no admission token leaves it before the ticket's pass exists in the
// user's partition slot, where the guarded routes check it (packages/admission/src/room-passes.ts). The pass
// keeps the digest of the one token handed out for the admission, and every grant answers that token, so a join,
// a poll and a socket push, here or at another intake, hand out the same one: the only one the gate admits.
// Polls repeat every second or two, so a ticket granted here lately is not granted again: its token is
// remembered with it.
import { type AdmissionKeys, type AdmissionTokens, grantPass, type TicketState } from "@floodgate/admission";
import type { ScriptedRedis } from "@floodgate/redis-connections";

/** A grant this recent is not sent again (a pass lost with a failed-over Redis node comes back after it). */
const RECENT_MS = 10_000;
const MAX_REMEMBERED = 50_000;

/** The admission a token is signed for. */
export interface GrantedTicket {
  roomId: string;
  ticketId: string;
  userId: string;
  admittedAt: number;
  expiresAt: number;
}

export class PassGrants {
  readonly #redis: ScriptedRedis;
  readonly #keys: AdmissionKeys;
  readonly #tokens: AdmissionTokens;
  /** "<roomId> <ticketId>" -> when granted and the token handed out; oldest first. */
  readonly #recent = new Map<string, { grantedAt: number; token: string }>();

  constructor(redis: ScriptedRedis, keys: AdmissionKeys, tokens: AdmissionTokens) {
    this.#redis = redis;
    this.#keys = keys;
    this.#tokens = tokens;
  }

  /**
   * The ticket as a client may see it and, when admitted, the token to hand out with it: an admitted ticket
   * only once its pass is granted, as revoked when a revoke came first, and as expired when its session ended on
   * its order before the room's record says so (the worker closes the pass and ends the session in the room at
   * once, each in its own slot: one read more, on a refused grant only). Throws when Redis cannot be reached
   * (the answer then carries no token).
   */
  async beforeToken(ticket: TicketState): Promise<{ ticket: TicketState; admissionToken?: string }> {
    if (ticket.status !== "admitted") return { ticket };
    const now = Date.now();
    const token = await this.grant({
      roomId: ticket.roomId,
      ticketId: ticket.ticketId,
      userId: ticket.userId,
      admittedAt: ticket.admittedAt ?? now,
      expiresAt: ticket.expiresAt ?? now,
    });
    if (token !== null) return { ticket, admissionToken: token };
    const pass = await this.#redis.hget(this.#keys.roomPasses(ticket.roomId, ticket.userId), ticket.ticketId);
    return { ticket: { ...ticket, status: pass?.startsWith("ended|") ? "expired" : "revoked" } };
  }

  /** The token to hand out for the admission (the pass's), or null when the ticket's pass was revoked. */
  async grant(ticket: GrantedTicket): Promise<string | null> {
    const remembered = `${ticket.roomId} ${ticket.ticketId}`;
    const recent = this.#recent.get(remembered);
    if (recent !== undefined && Date.now() - recent.grantedAt < RECENT_MS) return recent.token;
    // Signed only when this process holds none for the ticket: a grant that finds a token stored answers it.
    const token = recent?.token ?? this.#tokens.issue(ticket);
    const handedOut = await grantPass(this.#redis, this.#keys, ticket, token);
    this.#recent.delete(remembered);
    if (handedOut !== null) {
      this.#recent.set(remembered, { grantedAt: Date.now(), token: handedOut });
      if (this.#recent.size > MAX_REMEMBERED) this.#recent.delete(this.#recent.keys().next().value!);
    }
    return handedOut;
  }
}
