// A payment message as the intake mints it, for this package's tests: with an Idempotency-Key its id ends in the
// key's tail (idempotentTailOf), so its status hash is the key's record.
import { type MoneyOperationMessage, newOperationId } from "@floodgate/domain";
import { idempotentTailOf } from "../src/index.ts";

export const paymentMessage = (
  userId: string,
  options: { key?: string; bucket: number; createdAt?: number },
): MoneyOperationMessage => {
  const createdAt = options.createdAt ?? Date.now();
  const { key } = options;
  return {
    v: 1,
    kind: "payment",
    id: newOperationId(
      "payment",
      options.bucket,
      createdAt,
      key === undefined ? undefined : idempotentTailOf("payment", userId, key),
    ),
    userId,
    amount: 500,
    currency: "KRW",
    createdAt,
  };
};
