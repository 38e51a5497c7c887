// The SDK's budget: under 6 KB minified + gzipped, measured on the very bundle a browser is served: the file
// the build wrote to dist/browser/ (scripts/browser-bundle.ts; scripts/measure-bundle-size.ts prints it). The
// bundle must also load as an ES module and export the API, or a small number would mean nothing.
import { describe, expect, it } from "vitest";
import { measureBundleSize, readBrowserBundle } from "../scripts/browser-bundle.ts";

const BUDGET_BYTES = 6 * 1024;

describe("the browser bundle", () => {
  it("is under 6 KB minified + gzipped", async () => {
    const { minifiedBytes, gzippedBytes } = await measureBundleSize();
    expect(gzippedBytes).toBeLessThan(BUDGET_BYTES);
    expect(gzippedBytes).toBeLessThan(minifiedBytes);
  });

  it("is one ES module exporting the whole API, with no imports left", async () => {
    const text = await readBrowserBundle();
    expect(text).not.toMatch(/\bimport\s*[{("']/);
    const sdk = await import(`data:text/javascript;base64,${Buffer.from(text).toString("base64")}`);
    expect(Object.keys(sdk).sort()).toEqual([
      "AlreadyIssuedError",
      "AuthenticationError",
      "ConnectionError",
      "FloodgateError",
      "IdempotencyConflictError",
      "InsufficientFundsError",
      "OutOfStockError",
      "PermissionError",
      "RateLimitError",
      "RoomSoldOutError",
      "SoldOutError",
      "ValidationError",
      "createCheckout",
    ]);
    const checkout = sdk.createCheckout({ baseUrl: "http://127.0.0.1:1" });
    expect(Object.keys(checkout).sort()).toEqual([
      "cancelOrder",
      "claimCoupon",
      "deposit",
      "joinRoom",
      "pay",
      "placeOrder",
      "product",
      "wallet",
    ]);
    const error = new sdk.SoldOutError({ status: 410, code: "sold_out", detail: "gone" });
    expect(error).toBeInstanceOf(sdk.FloodgateError);
    expect(error).toMatchObject({ name: "SoldOutError", code: "sold_out", status: 410, message: "gone" });
    const expired = new sdk.AuthenticationError({ status: 401, code: "token_expired", requestId: "req-1" });
    expect(expired).toBeInstanceOf(sdk.FloodgateError);
    expect(expired).toMatchObject({ name: "AuthenticationError", code: "token_expired", requestId: "req-1" });
  });
});
