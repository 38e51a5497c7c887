export * from "./coupon-definition.ts";
export * from "./coupon-id.ts";
export * from "./operation-id.ts";
export * from "./operation-message.ts";
export * from "./operation-status.ts";
export * from "./schemas/coupon-schemas.ts";
export * from "./schemas/operation-schemas.ts";
