import { headers } from "@nats-io/transport-node";
import { encodeJson } from "@warden/bus";
import { newId } from "@warden/contracts/events";
import { callEventSubject, STREAM_CALLS } from "@warden/contracts/subjects";
import { buildCallRequest } from "@warden/sdk";
import { CHAOS_DOMAIN, WRITE_TOOL } from "./chaos-executor.js";
import { AGENT, type Deployment } from "./deployment.js";
import { startPatiently } from "./managed-process.js";

export interface BacklogResult {
  readonly calls: number;
  readonly publishMs: number;
  /** From starting the services until every call had all its events, or nothing moved for a minute. */
  readonly drainMs: number;
  readonly drained: boolean;
  /** Call ids of the requests the server acknowledged. */
  readonly acked: readonly string[];
  /** Peak resident memory (VmHWM) of each process over the drain, in bytes. */
  readonly peakRss: Readonly<Record<string, number>>;
}

/** ToolArgsValidated, ToolPolicyChecked, ToolCallStarted and the ending follow each allowed write. */
const EVENTS_AFTER_REQUEST = 4;
const PUBLISH_WINDOW = 256;
const STALL_MS = 60_000;

/**
 * A backlog as after an outage of every service: `n` agent requests stored while nothing runs,
 * then every service started at once to drain them, with each process's peak memory measured.
 */
export async function drainBacklog(d: Deployment, n: number, onProgress?: (done: number) => void): Promise<BacklogResult> {
  await Promise.all(d.services.map((s) => s.signal("SIGTERM")));
  d.note(`services stopped; publishing a backlog of ${n} calls`);
  const t0 = Date.now();
  const acked = await publishRequests(d, n);
  const publishMs = Date.now() - t0;
  const base = (await d.admin.jsm.streams.info(STREAM_CALLS)).state.messages;
  const target = base + n * EVENTS_AFTER_REQUEST;

  const t1 = Date.now();
  d.note(`backlog published in ${publishMs} ms; starting every service`);
  await Promise.all(d.services.map((s) => startPatiently(s)));
  let last = base;
  let lastMove = Date.now();
  let drained = false;
  for (;;) {
    const now = (await d.admin.jsm.streams.info(STREAM_CALLS)).state.messages;
    if (now > last) lastMove = Date.now();
    last = now;
    onProgress?.(Math.floor((now - base) / EVENTS_AFTER_REQUEST));
    if (now >= target) {
      drained = true;
      break;
    }
    if (Date.now() - lastMove > STALL_MS) break;
    await new Promise((r) => setTimeout(r, 1_000));
  }
  const drainMs = (drained ? Date.now() : lastMove) - t1;
  // VmHWM is each process's own peak since it started: the services started for the drain
  const peakRss: Record<string, number> = {};
  for (const s of d.services) peakRss[s.name] = s.peakRssBytes();
  for (const node of d.nats.nodes) peakRss[node.process.name] = node.process.peakRssBytes();
  d.note(`backlog ${drained ? "drained" : "stalled"} after ${drainMs} ms`);
  return { calls: n, publishMs, drainMs, drained, peakRss, acked };
}

/** Requests as the agent's SDK builds them, appended once each (expected last subject sequence 0). */
async function publishRequests(d: Deployment, n: number): Promise<string[]> {
  const runId = newId();
  const acked: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const built = buildCallRequest({
        callId: newId(),
        eventId: newId(),
        tool: WRITE_TOOL,
        args: { n: i },
        principal: AGENT,
        mode: "plan",
        runId,
        scope: null,
        flags: {},
        now: new Date(),
      });
      if (!built.ok) throw new Error(`cannot build a request: ${built.error.message}`);
      const h = headers();
      h.set("Nats-Expected-Last-Subject-Sequence", "0");
      await d.admin.js.publish(callEventSubject(CHAOS_DOMAIN, built.value.callId, "ToolCallRequested", AGENT), encodeJson(built.value), { headers: h });
      acked.push(built.value.callId);
    }
  };
  await Promise.all(Array.from({ length: PUBLISH_WINDOW }, worker));
  return acked;
}
