// What `./floodgate dlq` says about one dead letter: its kind, user and times, its message decoded (or why it
// does not decode), and whether it may be replayed.
import { decodeOperationMessage, type OperationMessage, parseOperationId } from "@floodgate/domain";
import type { DeadLetter } from "@floodgate/queue";

export interface DeadLetterView {
  letter: DeadLetter;
  kind: string;
  userId: string;
  /** When the intake accepted it (the operation id carries it). */
  acceptedAt: number | null;
  /** When the worker dead-lettered it, after its last failed delivery. */
  deadLetteredAt: number;
  decoded: OperationMessage | null;
  decodeError: string | null;
}

export function viewDeadLetter(letter: DeadLetter): DeadLetterView {
  const parsed = parseOperationId(letter.operationId);
  let decoded: OperationMessage | null = null;
  let decodeError: string | null = null;
  try {
    decoded = decodeOperationMessage(letter.message, letter.operationId);
  } catch (error) {
    decodeError = (error as Error).message;
  }
  return {
    letter,
    kind: decoded?.kind ?? parsed?.kind ?? "?",
    userId: userOf(decoded),
    acceptedAt: decoded?.createdAt ?? parsed?.createdAtMs ?? null,
    deadLetteredAt: letter.deadLetteredAt,
    decoded,
    decodeError,
  };
}

/** A refund and a provider payment name no user (their payment's or order's row knows it): that stands in. */
function userOf(decoded: OperationMessage | null): string {
  if (decoded === null) return "?";
  if ("userId" in decoded) return decoded.userId;
  return decoded.kind === "refund" ? `payment ${decoded.paymentId}` : `order ${decoded.orderId}`;
}

/**
 * Why a dead letter must not go back to its stream, or null when it may. An order gave its reservation back
 * when it was dead-lettered (the worker's deadLetteredOrders releases its Redis stock, coupon and any global
 * stock): replayed, it would become an order that holds no stock. The shopper orders again instead.
 */
export function replayRefusal(view: DeadLetterView): string | null {
  if (view.decoded === null) {
    return `its message does not decode (${view.decodeError}): the worker would dead-letter it again; drop it`;
  }
  if (view.decoded.kind === "order") {
    return (
      "it is an order, and its reserved stock and coupon were given back when it was dead-lettered: " +
      "replayed it would hold no stock. The shopper must order again; drop it"
    );
  }
  return null;
}

export const isoTime = (ms: number | null): string => (ms === null ? "?" : new Date(ms).toISOString());

/** Everything about one dead letter, for `dlq show`: the message pretty-printed last. */
export function showLines(view: DeadLetterView, status: Record<string, string>): string[] {
  const { letter } = view;
  const statusLine =
    status.status === undefined
      ? "expired from Redis (a replay writes a pending status again)"
      : [status.status, status.failureReason, status.completedAt && isoTime(Number(status.completedAt))]
          .filter(Boolean)
          .join(", ");
  const refusal = replayRefusal(view);
  // The whole message when it decodes (a letter may hold only its body: encodeMessageBody), else as stored.
  let message: string;
  try {
    message = JSON.stringify(view.decoded ?? JSON.parse(letter.message), null, 2);
  } catch {
    message = letter.message;
  }
  return [
    `id:              ${letter.operationId}`,
    `kind:            ${view.kind}`,
    `user:            ${view.userId}`,
    `accepted:        ${isoTime(view.acceptedAt)}`,
    `first failure:   ${isoTime(letter.firstFailedAt)}`,
    `dead-lettered:   ${isoTime(view.deadLetteredAt)} (dead-letter entry ${letter.deadLetterId})`,
    `deliveries:      ${letter.deliveries}`,
    `partition:       ${letter.partition} (stream entry ${letter.entryId})`,
    `reason:          ${letter.reason}`,
    `status in Redis: ${statusLine}`,
    `replay:          ${refusal === null ? "possible" : `refused: ${refusal}`}`,
    ...(view.decodeError === null ? [] : [`decode error:    ${view.decodeError}`]),
    "message:",
    ...message.split("\n").map((line) => `  ${line}`),
  ];
}
