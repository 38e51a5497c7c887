// REDIS_URL names either one Redis (redis://, rediss://) or a Redis Cluster by some of its nodes
// (redis+cluster://host:port,host:port,...; rediss+cluster:// with TLS). A cluster URL lists seed nodes only:
// the client learns the rest of the cluster from them. A WHATWG URL cannot hold several hosts, so the cluster
// form is parsed here by hand. Errors never echo a password.
import { ConfigError } from "./env-reader.ts";

export interface RedisNodeAddress {
  host: string;
  port: number;
}

export type RedisTarget =
  | { kind: "single"; url: string }
  | {
      kind: "cluster";
      /** Seed nodes, in the order given. */
      nodes: RedisNodeAddress[];
      tls: boolean;
      username?: string;
      password?: string;
    };

const ACCEPTED =
  "redis://[user:password@]host[:port][/db], rediss://... (TLS), redis+cluster://[user:password@]host:port,host:port,... (seed nodes of a Redis Cluster) or rediss+cluster://... (cluster over TLS)";

const CLUSTER = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#]*)(.*)$/;
const NODE = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+))(?::(\d{1,5}))?$/;

/** REDIS_URL's value (any of its forms) with its password replaced by ***, for errors and logs. */
export function redactRedisUrl(value: string): string {
  return value.replace(/^([a-z+]+:\/\/[^:@/]*:)[^@/]*@/i, "$1***@");
}

function refuse(value: string, problem: string): never {
  throw new ConfigError(
    "REDIS_URL",
    `${problem}; accepted forms: ${ACCEPTED} (got ${JSON.stringify(redactRedisUrl(value))})`,
  );
}

export function parseRedisUrl(value: string): RedisTarget {
  const cluster = CLUSTER.exec(value);
  if (cluster) return parseCluster(value, cluster);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return refuse(value, "is not a URL");
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    return refuse(value, `has an unknown scheme ${url.protocol}`);
  }
  return { kind: "single", url: value };
}

function parseCluster(value: string, [, scheme, userInfo, hostList, rest]: RegExpExecArray): RedisTarget {
  if (rest !== "" && rest !== "/") {
    return refuse(
      value,
      /^\/\d+$/.test(rest ?? "")
        ? "names a database, but a Redis Cluster has only database 0: remove the /db"
        : "has a path, query or fragment after the nodes",
    );
  }
  const nodes = hostList!.split(",").map((entry) => {
    const node = NODE.exec(entry.trim());
    const port = Number(node?.[3] ?? 6379);
    if (!node || port < 1 || port > 65535)
      return refuse(value, `has a node that is not host:port: ${JSON.stringify(entry)}`);
    return { host: node[1] ?? node[2]!, port };
  });
  let username: string | undefined;
  let password: string | undefined;
  if (userInfo !== undefined) {
    const colon = userInfo.indexOf(":");
    const [user, secret] =
      colon === -1 ? [userInfo, undefined] : [userInfo.slice(0, colon), userInfo.slice(colon + 1)];
    try {
      username = user === "" ? undefined : decodeURIComponent(user!);
      password = secret === undefined || secret === "" ? undefined : decodeURIComponent(secret);
    } catch {
      return refuse(value, "has a user or password that is not percent-encoded correctly");
    }
  }
  return {
    kind: "cluster",
    nodes,
    tls: scheme === "rediss",
    ...(username !== undefined ? { username } : {}),
    ...(password !== undefined ? { password } : {}),
  };
}
