import { describe, expect, it } from "vitest";
import { redactUrl } from "./redact-url.ts";

describe("redactUrl", () => {
  it("hides a password and keeps the rest", () => {
    expect(redactUrl("postgres://app:s3cret@db.internal:5432/floodgate")).toBe(
      "postgres://app:***@db.internal:5432/floodgate",
    );
    expect(redactUrl("redis://:hunter2@127.0.0.1:6379/0")).toBe("redis://:***@127.0.0.1:6379/0");
  });

  it("leaves a URL without a password as it was", () => {
    expect(redactUrl("postgres://postgres@127.0.0.1:5432/floodgate")).toBe(
      "postgres://postgres@127.0.0.1:5432/floodgate",
    );
  });
});
