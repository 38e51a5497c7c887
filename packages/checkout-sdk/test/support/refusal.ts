// The error a promise rejects with, for assertions on its fields; a promise that resolves fails the test.

export function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a refusal, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}
