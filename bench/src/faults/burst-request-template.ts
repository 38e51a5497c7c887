// The overload burst's requests, built once per user: only the Idempotency-Key changes from one request to the
// next, so sending one is two string concatenations (no JSON, no header objects). A user's body names it
// (as the shop clients' do) and carries the phase's amount, which tells the phase's rows apart on the shards.

export interface BurstUser {
  userId: string;
  /** Its customer token; null when the system runs with AUTH=off. */
  token: string | null;
}

export interface BurstTemplate {
  /** The bytes of the `keyIndex`-th request (latin1: every byte is ASCII), sent as `users[userIndex]`. */
  request(userIndex: number, keyIndex: number): string;
  users: number;
}

export function burstTemplate(options: {
  host: string;
  port: number;
  users: readonly BurstUser[];
  keyPrefix: string;
  amount: number;
}): BurstTemplate {
  const heads: string[] = [];
  const tails: string[] = [];
  for (const user of options.users) {
    const body = JSON.stringify({ userId: user.userId, amount: options.amount });
    heads.push(
      "POST /v1/payments HTTP/1.1\r\n" +
        `Host: ${options.host}:${options.port}\r\n` +
        "Content-Type: application/json\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        (user.token === null ? "" : `Authorization: Bearer ${user.token}\r\n`) +
        `Idempotency-Key: ${options.keyPrefix}-`,
    );
    tails.push(`\r\n\r\n${body}`);
  }
  if (heads.length === 0) throw new Error("the burst needs at least one user");
  return {
    users: heads.length,
    request: (userIndex, keyIndex) => heads[userIndex]! + keyIndex + tails[userIndex]!,
  };
}
