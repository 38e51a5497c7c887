// Room passes granted by this process: no admission token leaves it before the ticket's pass exists in the
// user's partition slot, where the guarded routes check it (packages/admission/src/room-passes.ts). Polls repeat
// every second or two, so a ticket granted here lately is not granted again.
import { type AdmissionKeys, grantPass, type TicketState } from "@floodgate/admission";
import type { ScriptedRedis } from "@floodgate/redis-connections";

/** A grant this recent is not sent again (a pass lost with a failed-over Redis node comes back after it). */
const RECENT_MS = 10_000;
const MAX_REMEMBERED = 50_000;

export class PassGrants {
  readonly #redis: ScriptedRedis;
  readonly #keys: AdmissionKeys;
  /** "<roomId> <ticketId>" -> when granted; oldest first. */
  readonly #recent = new Map<string, number>();

  constructor(redis: ScriptedRedis, keys: AdmissionKeys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  /**
   * The ticket as a client may see it: an admitted ticket only once its pass is granted, and as revoked when
   * a revoke came first. Throws when Redis cannot be reached (the answer then carries no token).
   */
  async beforeToken(ticket: TicketState): Promise<TicketState> {
    if (ticket.status !== "admitted") return ticket;
    const granted = await this.grant(
      ticket.roomId,
      ticket.ticketId,
      ticket.userId,
      ticket.expiresAt ?? Date.now(),
    );
    return granted ? ticket : { ...ticket, status: "revoked" };
  }

  /** True when the pass holds the admission, false when the ticket's pass was revoked. */
  async grant(roomId: string, ticketId: string, userId: string, expiresAt: number): Promise<boolean> {
    const remembered = `${roomId} ${ticketId}`;
    const grantedAt = this.#recent.get(remembered);
    if (grantedAt !== undefined && Date.now() - grantedAt < RECENT_MS) return true;
    const granted = await grantPass(this.#redis, this.#keys, { roomId, ticketId, userId, expiresAt });
    this.#recent.delete(remembered);
    if (granted) {
      this.#recent.set(remembered, Date.now());
      if (this.#recent.size > MAX_REMEMBERED) this.#recent.delete(this.#recent.keys().next().value!);
    }
    return granted;
  }
}
