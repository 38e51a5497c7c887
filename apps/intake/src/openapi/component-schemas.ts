// Every request, response and event body the document shows, by its name in components.schemas: the routes
// keep using the schema objects themselves (Fastify validates and serializes with them), and the document
// refers to each by this name instead of repeating it (hoistComponents). A body left out of this list would
// be inlined: openapi.test.ts fails on any request or response body that is not a reference.
import {
  acceptedResponseSchema,
  admissionCheckRequestSchema,
  admissionCheckResponseSchema,
  admissionJwksResponseSchema,
  apiKeyCreateRequestSchema,
  apiKeyListResponseSchema,
  apiKeyResponseSchema,
  catalogProductResponseSchema,
  couponCreateRequestSchema,
  couponIssueAcceptedSchema,
  couponIssueEventSchema,
  couponIssueRequestSchema,
  couponIssueResponseSchema,
  couponResponseSchema,
  couponWithCountsResponseSchema,
  customerSessionRequestSchema,
  customerSessionResponseSchema,
  depositRequestSchema,
  eventFeedResponseSchema,
  joinPassRequestSchema,
  joinPassResponseSchema,
  operationResponseSchema,
  orderAcceptedResponseSchema,
  orderCancelAcceptedResponseSchema,
  orderCreateRequestSchema,
  orderEventSchema,
  orderListResponseSchema,
  orderResponseSchema,
  paymentEventSchema,
  paymentRequestSchema,
  pingEventSchema,
  problemResponseSchema,
  productChangeRequestSchema,
  productCreateRequestSchema,
  productResponseSchema,
  providerPaymentAcceptedResponseSchema,
  providerPaymentOrphanedEventSchema,
  providerPaymentRequestSchema,
  providerPaymentResponseSchema,
  rateLimitChangeRequestSchema,
  rateLimitPolicyResponseSchema,
  rateLimitsResponseSchema,
  refundAcceptedResponseSchema,
  refundEventSchema,
  refundRequestSchema,
  refundResponseSchema,
  roomDefinitionRequestSchema,
  roomEventSchema,
  roomResponseSchema,
  shuffleProofResponseSchema,
  ticketAdmittedEventSchema,
  ticketJoinRequestSchema,
  ticketResponseSchema,
  userCouponsResponseSchema,
  walletResponseSchema,
  webhookDeliveryListResponseSchema,
  webhookDeliveryResponseSchema,
  webhookEndpointCreatedResponseSchema,
  webhookEndpointCreateRequestSchema,
  webhookEndpointListResponseSchema,
  webhookEndpointResponseSchema,
  webhookEndpointUpdateRequestSchema,
  webhookSecretRotatedResponseSchema,
} from "@floodgate/domain";
import { healthResponseSchema, readinessResponseSchema } from "../health/health-schemas.ts";
import { orderConflictResponseSchema } from "../orders/order-problem-schema.ts";

export const COMPONENT_SCHEMAS: Record<string, object> = {
  Problem: problemResponseSchema,
  OrderConflictProblem: orderConflictResponseSchema,
  Accepted: acceptedResponseSchema,
  PaymentRequest: paymentRequestSchema,
  DepositRequest: depositRequestSchema,
  /** A payment or a deposit. */
  Payment: operationResponseSchema,
  Wallet: walletResponseSchema,
  CouponCreateRequest: couponCreateRequestSchema,
  Coupon: couponResponseSchema,
  CouponWithCounts: couponWithCountsResponseSchema,
  CouponIssueRequest: couponIssueRequestSchema,
  CouponIssueAccepted: couponIssueAcceptedSchema,
  CouponIssue: couponIssueResponseSchema,
  UserCoupons: userCouponsResponseSchema,
  OrderCreateRequest: orderCreateRequestSchema,
  OrderAccepted: orderAcceptedResponseSchema,
  OrderCancelAccepted: orderCancelAcceptedResponseSchema,
  Order: orderResponseSchema,
  OrderList: orderListResponseSchema,
  RefundRequest: refundRequestSchema,
  RefundAccepted: refundAcceptedResponseSchema,
  Refund: refundResponseSchema,
  ProviderPaymentRequest: providerPaymentRequestSchema,
  ProviderPaymentAccepted: providerPaymentAcceptedResponseSchema,
  /** An order paid at the shop's own payment provider (no wallet). */
  ProviderPayment: providerPaymentResponseSchema,
  ProductCreateRequest: productCreateRequestSchema,
  ProductChangeRequest: productChangeRequestSchema,
  Product: productResponseSchema,
  CatalogProduct: catalogProductResponseSchema,
  AdmissionJwks: admissionJwksResponseSchema,
  AdmissionCheckRequest: admissionCheckRequestSchema,
  AdmissionCheck: admissionCheckResponseSchema,
  RoomDefinitionRequest: roomDefinitionRequestSchema,
  Room: roomResponseSchema,
  TicketJoinRequest: ticketJoinRequestSchema,
  Ticket: ticketResponseSchema,
  JoinPassRequest: joinPassRequestSchema,
  JoinPass: joinPassResponseSchema,
  ShuffleProof: shuffleProofResponseSchema,
  RateLimitChangeRequest: rateLimitChangeRequestSchema,
  RateLimitPolicy: rateLimitPolicyResponseSchema,
  RateLimits: rateLimitsResponseSchema,
  ApiKeyCreateRequest: apiKeyCreateRequestSchema,
  ApiKey: apiKeyResponseSchema,
  ApiKeyList: apiKeyListResponseSchema,
  CustomerSessionRequest: customerSessionRequestSchema,
  CustomerSession: customerSessionResponseSchema,
  WebhookEndpointCreateRequest: webhookEndpointCreateRequestSchema,
  WebhookEndpointUpdateRequest: webhookEndpointUpdateRequestSchema,
  WebhookEndpoint: webhookEndpointResponseSchema,
  WebhookEndpointCreated: webhookEndpointCreatedResponseSchema,
  WebhookEndpointList: webhookEndpointListResponseSchema,
  WebhookSecretRotated: webhookSecretRotatedResponseSchema,
  WebhookDelivery: webhookDeliveryResponseSchema,
  WebhookDeliveryList: webhookDeliveryListResponseSchema,
  EventList: eventFeedResponseSchema,
  PaymentEvent: paymentEventSchema,
  OrderEvent: orderEventSchema,
  CouponIssueEvent: couponIssueEventSchema,
  RefundEvent: refundEventSchema,
  PingEvent: pingEventSchema,
  ProviderPaymentOrphanedEvent: providerPaymentOrphanedEventSchema,
  RoomEvent: roomEventSchema,
  TicketAdmittedEvent: ticketAdmittedEventSchema,
  Health: healthResponseSchema,
  Readiness: readinessResponseSchema,
};

/** Marks a schema node with the component it becomes (hoistComponents replaces it with a reference). */
export const COMPONENT_MARK = "x-component";

const NAMES = new Map<object, string>(
  Object.entries(COMPONENT_SCHEMAS).map(([name, schema]) => [schema, name]),
);

/**
 * A copy of `node` in which every catalogued schema object (found by identity, at any depth) carries its
 * component's name. Only the document sees the copy.
 */
export function markComponents<T>(node: T): T {
  if (Array.isArray(node)) return node.map(markComponents) as T;
  if (node === null || typeof node !== "object") return node;
  const copy = Object.fromEntries(
    Object.entries(node as Record<string, unknown>).map(([key, value]) => [key, markComponents(value)]),
  );
  const name = NAMES.get(node as object);
  return (name === undefined ? copy : { ...copy, [COMPONENT_MARK]: name }) as T;
}
