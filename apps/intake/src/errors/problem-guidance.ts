// What a client should do about each problem code: the page its `type` URI resolves to (problem-pages-route.ts).
// Typed by the catalogue, so a new code does not compile without its advice.
import type { ErrorCode } from "./error-catalogue.ts";

export const PROBLEM_GUIDANCE: Record<ErrorCode, string> = {
  validation_error:
    "Fix the request: `errors[]` names each field at fault (`field`, a JSON `pointer` for body fields) and why. Nothing was stored.",
  malformed_json:
    "Send a body that parses as JSON (the detail gives the parser's complaint). Nothing was stored.",
  invalid_idempotency_key:
    "Send Idempotency-Key as 1-255 visible ASCII characters (a UUID is fine), or leave it out. Nothing was stored.",
  invalid_operation_id:
    "The id is not one this API mints: use the `id` of a 202 answer (or its Location) as it was given.",
  unauthorized:
    "Send `Authorization: Bearer <credential>`: the shop's server key (fg_sk_…), a customer token, or on admin routes the ADMIN_API_KEY. WWW-Authenticate says which realm.",
  invalid_token:
    "The token was forged, malformed, or minted for another issuer or audience: get a new one from the shop's server (POST /v1/customer-sessions).",
  token_expired:
    "Get a new customer token from the shop's server and repeat the request with the same Idempotency-Key.",
  forbidden_user:
    "A customer token acts only for its own user: leave `userId` out (the token's user is used) or name that user.",
  forbidden_caller:
    "Use the credential this route takes: deposits and customer tokens need the shop's server key; the admin key only configures.",
  not_open:
    "The coupon's issue window is closed or not yet open (the detail says when); try within its window.",
  waiting_room_required:
    "Join the room (POST `joinUrl`), wait for admission (its WebSocket or polling the ticket), then repeat the request with `Admission-Token` and the same Idempotency-Key. `reason` says why the token sent did not count.",
  admission_used:
    "The room is one-shot: this admission token already served one accepted request and is spent (a retry of that request with the same Idempotency-Key still gets its answer). Another request needs another admission: join the room (`joinUrl`) once this one's session has ended.",
  not_found:
    "No such resource, or not this caller's (a shopper sees only their own). `field` names the id; check it.",
  order_not_payable:
    "The order expired or was cancelled before the provider payment reached it: refund the charge at your provider (order.provider_payment_orphaned carries it).",
  order_already_paid:
    "Another payment paid this order first: refund this charge at your provider (order.provider_payment_orphaned carries it).",
  amount_mismatch:
    "The provider took another amount than the order's: refund the charge at your provider (order.provider_payment_orphaned carries it) and charge the order's `amount`.",
  reference_used:
    "This (provider, reference) already paid another order: each charge pays one order. Send the reference of this order's charge.",
  provider_payment_not_refundable:
    "The order was paid at your payment provider (`ppy_` id): refund the charge there. Floodgate moves no money for it.",
  already_issued: "This user already holds the coupon: `existingId` is the issue that holds it.",
  out_of_stock:
    "`lines[]` says what is left of each short line: order fewer units or fewer products. The answer is final for this Idempotency-Key; send a new key to try again.",
  coupon_already_used:
    "Another order (`existingId`) redeemed this coupon issue: order without it, or cancel that order first.",
  unit_limit_exceeded:
    "The user holds unpaid units of a product up to its per-user limit (`lines[]`: held, limit): pay or cancel an order of it, or ask for fewer.",
  payment_not_found:
    "The refund names a payment its shard does not hold: use the `id` of the payment's 202 answer. The refund failed and changed nothing.",
  payment_not_succeeded:
    "Only a succeeded payment can be refunded (GET /v1/payments/:id). The refund failed and changed nothing.",
  refund_exceeds_payment:
    "Refund at most what is left (the payment's amount less its earlier refunds); omit `amount` to refund all of it. The refund failed and changed nothing.",
  restock_not_possible:
    "Ask `restock: true` only with a refund that leaves the order's payment fully refunded (omit `amount`); partial refunds cannot say which units came back. The refund failed and changed nothing.",
  order_not_cancellable: "The order already ended (paid, cancelled, expired or failed): GET it to see how.",
  room_guard_conflict:
    "Another active room guards one of these route classes: set its mode to off, or drop the class from one of them.",
  room_sale_conflict:
    "Another active room guards one of these products or coupons (the field names which): set its mode to off, or drop it from one of them.",
  order_spans_rooms:
    "Each of the rooms in `rooms` guards some of the order's products: place one order per room, each with that room's admission token.",
  sold_out: "Every coupon of this definition has been issued; there are no more.",
  room_sold_out:
    "Every unit of the room's products is sold and none waits for payment: there is nothing to queue for. A restock reopens the room.",
  room_closed:
    "The room's endsAt has passed: it takes no join and admits nobody more. Its operator reopens it by setting a later endsAt (or none).",
  room_rejecting:
    "The room's operator has switched it to refuse everyone (method reject); `detail` carries the room's message. Try again later: no place was given.",
  join_pass_invalid:
    "The join's `pass` is not one this deployment signed, was altered, or has expired: ask the shop's server for a new one (POST /v1/rooms/{roomId}/passes), or join without it. Nothing was written.",
  join_pass_mismatch:
    "The join's `pass` was minted for another user or another room: a pass serves only the shopper and room it names. Nothing was written.",
  room_joins_server_only:
    "This room gives places only through the shop's server (server key), which runs the shop's own checks first: join through the shop's page or API, not with a customer token.",
  upgrade_required:
    'Open the URL as a WebSocket (`new WebSocket("wss://…")`, a GET with `Upgrade: websocket`), with the credential as `?access_token=` in a browser; the messages it sends are in the reference. Without a WebSocket, poll the resource\'s GET route instead.',
  body_too_large: "Send a body of at most 16 KiB.",
  unsupported_media_type: "Send the body as `Content-Type: application/json`.",
  webhook_url_refused:
    "Give an endpoint on a public address: its host is, or resolves to, a private, loopback or link-local one. A deployment on a closed network sets WEBHOOK_ALLOW_PRIVATE=true.",
  idempotency_key_reused:
    "This Idempotency-Key was first used with another body (`existingId` names what it created): use a new key for a new request.",
  currency_mismatch:
    "Send this deployment's currency (or leave `currency` out); amounts are integers in its minor unit.",
  coupon_not_yours: "The coupon issue belongs to another user: use one issued to this user.",
  amount_too_large: "The order's amount is above 10^12 minor units, the largest allowed: split the order.",
  rate_limited:
    "Wait Retry-After seconds, then retry with the same Idempotency-Key. RateLimit and RateLimit-Policy say which limit. Nothing was stored.",
  service_unavailable:
    "A store was unreachable: retry after Retry-After seconds with the same Idempotency-Key. When the store refused the request nothing was stored; when it did not answer in time (the detail says which) the request may have been stored, and the retry is answered with its outcome.",
  overloaded:
    "The workers' backlog is longer than this deployment takes new work for: retry after Retry-After seconds with the same Idempotency-Key.",
  busy: "This intake process fell behind its requests (its event loop or Redis is late) and refused this one before doing any work: nothing was stored. Retry after Retry-After seconds with the same Idempotency-Key.",
  admin_disabled:
    "The operator must set ADMIN_API_KEY for the admin routes to answer; no key can succeed until then.",
  coupon_state_missing:
    "The coupon's Redis state is missing: an operator must restore it (./floodgate reconcile). Retry later.",
  product_state_not_written:
    "The change is stored in Postgres but not yet in Redis: do not repeat it (stock would count twice). Reconcile brings Redis up to date; GET the product to see it.",
  internal_error:
    "A bug on our side: retry later with the same Idempotency-Key, and report it if it persists.",
};
