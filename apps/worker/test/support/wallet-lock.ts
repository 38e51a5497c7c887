// Holds one wallet's row lock from outside, so a worker's transaction on that shard waits mid-batch: the
// deterministic way to have a batch in flight (some shards committed, not yet acknowledged) when a test acts.
import pg from "pg";

export interface WalletLock {
  release(): Promise<void>;
}

export async function lockWallet(shardUrl: string, userId: string): Promise<WalletLock> {
  const client = new pg.Client({ connectionString: shardUrl });
  await client.connect();
  await client.query("insert into wallets (user_id) values ($1) on conflict (user_id) do nothing", [userId]);
  await client.query("begin");
  await client.query("select 1 from wallets where user_id = $1 for update", [userId]);
  let released: Promise<void> | undefined;
  const release = async () => {
    await client.query("rollback");
    await client.end();
  };
  return {
    release() {
      released ??= release();
      return released;
    },
  };
}
