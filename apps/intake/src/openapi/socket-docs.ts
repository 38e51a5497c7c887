// The two WebSockets, described in the OpenAPI document as the GET that upgrades (OpenAPI has no messages):
// the messages each sends are the operation's `x-websocket` extension, and its description says the same in
// prose for the reference page. Messages: operation-watchers.ts, ticket-messages.ts, socket-caller.ts.
import { problemResponseSchema } from "@floodgate/domain";

export interface SocketDocs {
  /** What the server sends, by the message's `type`. */
  serverMessages: Record<string, object>;
  /** Close codes and what each means. */
  closeCodes: Record<string, string>;
  /** What the client may send. */
  clientMessages: string;
}

// Every refusal, on either socket (socket-problem.ts): the problem+json an HTTP route would answer, and its code
// beside it; the close that follows carries 4000 + its status.
const refusal = {
  type: "object",
  required: ["type", "code", "problem"],
  additionalProperties: false,
  properties: {
    type: { const: "error" },
    code: { type: "string", description: "The problem's code, as in `problem.code`." },
    problem: problemResponseSchema,
  },
};

const refusalCloseCodes = {
  "1001": "the intake is shutting down: reconnect (another intake serves the same socket)",
  "1011": "a store could not be read: reconnect shortly",
  "4401": "no valid credential (access_token or Authorization), after an `error` message naming the problem",
  "4403": "this caller may not watch this (an admin key), after an `error` message",
};

export const operationSocketDocs: SocketDocs = {
  serverMessages: {
    status: {
      type: "object",
      required: ["type", "operation"],
      properties: {
        type: { const: "status" },
        operation: {
          type: "object",
          description: "The body of the operation's GET route (an `ocx_` id reports its order).",
        },
      },
    },
    error: refusal,
  },
  closeCodes: {
    "1000": "a final status was sent (succeeded or failed; orders paid, cancelled, expired or failed)",
    "4400": "the id is not a well-formed operation id",
    "4404": "no such operation, or not this caller's",
    ...refusalCloseCodes,
  },
  clientMessages: "nothing but pings; a message over 1 KiB closes the socket 1009",
};

export const ticketSocketDocs: SocketDocs = {
  serverMessages: {
    position: {
      type: "object",
      required: ["type", "position", "etaSeconds"],
      properties: {
        type: { const: "position" },
        position: { type: "integer", minimum: 0 },
        etaSeconds: { type: "integer", minimum: 0 },
        unitsLeft: {
          type: "integer",
          minimum: 0,
          description: "A room selling products: the units left (sent again when it changes).",
        },
      },
    },
    admitted: {
      type: "object",
      required: ["type", "admissionToken", "expiresAt", "admittedAt"],
      properties: {
        type: { const: "admitted" },
        admissionToken: { type: "string", description: "Send it as Admission-Token on guarded routes." },
        expiresAt: { type: "string", format: "date-time" },
        admittedAt: { type: "string", format: "date-time" },
      },
    },
    sold_out: {
      type: "object",
      required: ["type"],
      properties: { type: { const: "sold_out" } },
      description:
        "The room's products are sold out: none left, none awaiting payment (sent within a second). The socket stays open and the ticket keeps its place: a restock reopens the room and `position` messages follow again.",
    },
    closed: {
      type: "object",
      required: ["type"],
      properties: { type: { const: "closed" } },
      description:
        "The room's endsAt has passed: it admits nobody more. The socket stays open and the ticket keeps its place: a later endsAt (or none) reopens the room and `position` messages follow again.",
    },
    expired: {
      type: "object",
      required: ["type", "reason"],
      properties: { type: { const: "expired" }, reason: { type: "string" } },
    },
    error: refusal,
  },
  closeCodes: {
    "1000": "the ticket ended (its `expired` message says why)",
    "4404": "no such ticket in this room, or not this caller's",
    ...refusalCloseCodes,
  },
  clientMessages:
    "nothing but pings; an open socket is the ticket's heartbeat (a ticket with none for abandonSeconds loses its place)",
};

/** The reference page's prose for a socket: its messages and close codes. */
export function socketDescription(docs: SocketDocs): string {
  const messages = Object.keys(docs.serverMessages)
    .map((type) => `\`{"type": "${type}", ...}\``)
    .join(", ");
  const closes = Object.entries(docs.closeCodes)
    .map(([code, meaning]) => `- \`${code}\`: ${meaning}`)
    .join("\n");
  return (
    "**WebSocket** (`ws:`/`wss:`): browsers pass the credential as `?access_token=`. " +
    `The server sends JSON messages ${messages} (schemas in \`x-websocket\`); the client sends ` +
    `${docs.clientMessages}.\n\nClose codes:\n${closes}`
  );
}
