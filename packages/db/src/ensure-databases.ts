import pg from "pg";

/** Creates each database that does not exist yet, connecting to its server's `postgres` database. */
export async function ensureDatabases(urls: string[]): Promise<string[]> {
  const created: string[] = [];
  for (const url of urls) {
    const target = new URL(url);
    const name = decodeURIComponent(target.pathname.slice(1));
    const admin = new URL(url);
    admin.pathname = "/postgres";
    const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: 5000 });
    await client.connect();
    try {
      const exists = await client.query("select 1 from pg_database where datname = $1", [name]);
      if (exists.rowCount === 0) {
        await client
          .query(`create database ${pg.escapeIdentifier(name)}`)
          .catch((error: { code?: string }) => {
            if (error.code !== "42P04") throw error; // created concurrently by another process
          });
        created.push(name);
      }
    } finally {
      await client.end();
    }
  }
  return created;
}

export async function dropDatabases(urls: string[]): Promise<void> {
  for (const url of urls) {
    const name = decodeURIComponent(new URL(url).pathname.slice(1));
    const admin = new URL(url);
    admin.pathname = "/postgres";
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    try {
      await client.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
    } finally {
      await client.end();
    }
  }
}
