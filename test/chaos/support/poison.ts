import { headers } from "@nats-io/transport-node";
import { requestRpc, type Bus } from "@warden/bus";
import { newId } from "@warden/contracts/events";
import { callEventSubject, callReadSubject, MAX_REQUEST_BYTES } from "@warden/contracts/subjects";
import { buildCallRequest } from "@warden/sdk";
import { WRITE_TOOL } from "./chaos-executor.js";
import { AGENT } from "./deployment.js";

/** The kinds of request no Warden service can accept, each on a usable request subject. */
export const POISON_KINDS = ["not-json", "invalid-utf8", "nested-50000", "schema-invalid", "callid-mismatch", "oversized"] as const;
export type PoisonKind = (typeof POISON_KINDS)[number];

export interface PoisonSent {
  readonly kind: PoisonKind;
  /** The call id of the subject it was stored under: the call that must still end. */
  readonly callId: string;
  readonly at: number;
}

const DEPTH = 50_000;

/** A well-formed request of the chaos agent, as bytes, so a test can corrupt one part of it. */
function requestJson(callId: string, args: unknown): string {
  const built = buildCallRequest({
    callId,
    eventId: newId(),
    tool: WRITE_TOOL,
    args: { n: 0 },
    principal: AGENT,
    mode: "plan",
    runId: newId(),
    scope: null,
    flags: {},
    now: new Date(),
  });
  if (!built.ok) throw new Error(`cannot build a request: ${built.error.message}`);
  // args are spliced in as text: the SDK refuses to build what a hostile client could still send
  const json = JSON.stringify(built.value);
  const at = json.indexOf('"args":{"n":0}');
  if (at < 0) throw new Error("bug: no args in the built request");
  return `${json.slice(0, at)}"args":${typeof args === "string" ? args : JSON.stringify(args)}${json.slice(at + '"args":{"n":0}'.length)}`;
}

function poisonBody(kind: PoisonKind, callId: string): Uint8Array {
  switch (kind) {
    case "not-json":
      return Buffer.from(`{"v":1,"type":"ToolCallRequested","callId":"${callId}", this is not JSON`);
    case "invalid-utf8": {
      // 0xff and 0xfe never occur in UTF-8; a lenient decoder turns them into U+FFFD silently
      const [head, tail] = requestJson(callId, { n: 1, tag: "@@" }).split("@@");
      return Buffer.concat([Buffer.from(head!), Buffer.from([0xff, 0xfe, 0x41]), Buffer.from(tail!)]);
    }
    case "nested-50000":
      return Buffer.from(requestJson(callId, `{"n":2,"tag":${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}}`));
    case "schema-invalid":
      return Buffer.from(JSON.stringify({ v: 1, type: "ToolCallRequested", callId, domain: "chaos", tool: 42, data: "no" }));
    case "callid-mismatch":
      // the body names another call than the subject it was stored under
      return Buffer.from(requestJson(newId(), { n: 3 }));
    case "oversized":
      return Buffer.from(requestJson(callId, { n: 4, tag: "x".repeat(MAX_REQUEST_BYTES + 1024) }));
  }
}

/**
 * Publishes one request of every poison kind straight onto WARDEN_CALLS with the admin's
 * connection (as a compromised or buggy client library would), each under its own call id and
 * the chaos agent's request subject, append-once like any request.
 */
export async function publishPoison(admin: Bus, kinds: readonly PoisonKind[] = POISON_KINDS): Promise<PoisonSent[]> {
  const sent: PoisonSent[] = [];
  for (const kind of kinds) {
    const callId = newId();
    const h = headers();
    h.set("Nats-Expected-Last-Subject-Sequence", "0");
    await admin.js.publish(callEventSubject("chaos", callId, "ToolCallRequested", AGENT), poisonBody(kind, callId), { headers: h });
    sent.push({ kind, callId, at: Date.now() });
  }
  return sent;
}

/**
 * What the poisoned call's principal can read of it through the registry's call-read API (an
 * agent's only window onto the stream): the types of its settling events, or the error.
 */
export async function whatTheCallerSees(agent: Bus, callId: string): Promise<string[] | string> {
  const reply = await requestRpc(agent, callReadSubject(AGENT, "chaos", callId), { wait: "terminal", timeoutMs: 5_000 }, 10_000);
  if (!reply.ok) return `${reply.error.code}: ${reply.error.message}`;
  const events = (reply.value as { events?: { type?: unknown }[] }).events ?? [];
  return events.map((e) => String(e.type)).filter((t) => t !== "ToolCallRequested");
}
