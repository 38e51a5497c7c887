// For tests of a shop's server in front of the intake: @floodgate/node as a shop installs it (its npm pack
// tarball, installed into a new project), admission tokens minted by the real intake, and `./floodgate keys`
// run as an operator runs it.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { configToEnv, createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { packPackage, scratchProject } from "@floodgate/test-fixtures/packed-package";
import type { FastifyInstance } from "fastify";
import { expect } from "vitest";
import { buildApp } from "../../src/app.ts";
import { ADMIN_KEY, adminHeaders } from "./coupon-test-kit.ts";
import { documentedInject, get, post, waitUntil } from "./intake-test-kit.ts";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

export type FloodgateNode = typeof import("@floodgate/node");

/** @floodgate/node from its tarball, installed into a new project, and the module a shop would import. */
export async function installNodePackage(): Promise<{ module: FloodgateNode; remove: () => Promise<void> }> {
  const packDir = await mkdtemp(join(tmpdir(), "floodgate-node-pack-"));
  const packed = await packPackage(new URL("../../../../packages/node/", import.meta.url), packDir);
  const project = await scratchProject(packed.tarball, process.execPath);
  const entry = join(project.dir, "node_modules/@floodgate/node/dist/index.js");
  const module = (await import(pathToFileURL(entry).href)) as FloodgateNode;
  return {
    module,
    remove: async () => {
      await project.remove();
      await rm(packDir, { recursive: true, force: true });
    },
  };
}

/** An always-queueing room; a route class is guarded by one room at most, so a second room names another. */
export async function defineRoom(app: FastifyInstance, roomId: string, guards = ["payments"]): Promise<void> {
  const response = await documentedInject(app, {
    method: "PUT",
    url: `/v1/rooms/${roomId}`,
    headers: adminHeaders(),
    payload: { mode: "on", admitPerSecond: 50, sessionSeconds: 120, guards },
  });
  expect([200, 201]).toContain(response.statusCode);
}

/** A shopper joins the room and waits to be admitted: the admission token the room hands out. */
export async function admittedToken(app: FastifyInstance, roomId: string, userId: string): Promise<string> {
  const joined = await post(app, `/v1/rooms/${roomId}/tickets`, { userId });
  expect([200, 201]).toContain(joined.statusCode);
  const { ticketId } = joined.json();
  const view = await waitUntil(
    async () => (await get(app, `/v1/rooms/${roomId}/tickets/${ticketId}`)).json(),
    (ticket) => ticket.status === "admitted",
    `${userId} to be admitted`,
  );
  return view.admissionToken;
}

/**
 * A test file's own environment (the admin key, and `env` beside it) and intake, ready, with the room "drop"
 * guarding payments and this process's directory already holding it.
 */
export async function startWithDropRoom(
  name: string,
  env: Record<string, string> = {},
): Promise<{ env: TestEnvironment; app: FastifyInstance }> {
  const environment = await createTestEnvironment(name, { env: { ADMIN_API_KEY: ADMIN_KEY, ...env } });
  const app = await buildApp(environment.config, { logger: false });
  await app.ready();
  await defineRoom(app, "drop");
  await app.admission.refresh();
  return { env: environment, app };
}

/** A token's protected header or claims, unverified (for the kid and the ticket id). */
export const tokenPart = (token: string, index: 0 | 1) =>
  JSON.parse(Buffer.from(token.split(".")[index]!, "base64url").toString("utf8"));

/** `./floodgate keys <args>` against the environment's global database, as an operator runs it. */
export function keysCommand(env: TestEnvironment, args: string[]) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ["apps/cli/src/keys-command.ts", ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", ...configToEnv(env.config) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** Rotates in a new signing key at once and has `app` read it; the new kid. */
export async function rotateKey(env: TestEnvironment, app: FastifyInstance): Promise<string> {
  const rotated = await keysCommand(env, ["rotate", "--lead", "0"]);
  expect(rotated.stderr).toBe("");
  expect(rotated.status).toBe(0);
  const kid = /added key (\S+)/.exec(rotated.stdout)?.[1];
  expect(kid).toBeDefined();
  await app.admission.signingKeys.reload(); // what its timer does every 30 s
  expect(app.admission.signingKeys.signingKid()).toBe(kid);
  return kid!;
}
