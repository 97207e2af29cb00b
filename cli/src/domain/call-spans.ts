import { callAttributes } from "@warden/bus";
import { spanContextOfTraceparent, type EventOfType, type EventType, type WardenEvent } from "@warden/contracts/events";
import { consumerName } from "@warden/contracts/subjects";
import { DURABLE_APPROVER, DURABLE_POLICY, DURABLE_REGISTRY } from "@warden/contracts/permissions";
import { AGENT_DOMAIN } from "@warden/contracts/policy";
import { sha256Hex } from "@warden/contracts/json";
import type { SpanRecord } from "@warden/service-kit";

/** One recorded call: its events in stream order. */
export interface RecordedCall {
  readonly callId: string;
  readonly events: readonly WardenEvent[];
}

/** The attribute every rebuilt span carries, so a backend holding the live spans too can tell them apart. */
export const REBUILT_ATTRIBUTE = "warden.rebuilt";

/** How far parents are followed (causes within a call, then parent calls). */
const MAX_WALK = 64;

type Writer = "registry" | "policy" | "approver" | "executor";

/** The event types each writer's stage consumes: a stage's span is its handling of one of them. */
const CONSUMES: Readonly<Record<Writer, readonly EventType[]>> = {
  registry: ["ToolCallRequested"],
  policy: ["ToolArgsValidated"],
  approver: ["ToolPolicyChecked"],
  executor: ["ToolPolicyChecked", "ApprovalGranted"],
};

/**
 * Which stage wrote an event, as the services do it. Decisions by a person, expiries, cancels and
 * revocations are answered outside any stage (no span, live either); a subagent's view is written
 * inside its tool's run.
 */
function writerOf(e: WardenEvent): Writer | undefined {
  switch (e.type) {
    case "ToolArgsValidated":
      return "registry";
    case "ToolPolicyChecked":
      return "policy";
    case "ToolCallRejected":
      return e.data.stage;
    case "ApprovalRequested":
      return "approver";
    case "ApprovalGranted":
      // a session grant covers the call inside the approver's stage; a person's grant is an answer to a request
      return e.data.bySession === undefined ? undefined : "approver";
    case "ToolCallStarted":
    case "ToolCallFinished":
    case "ToolCallOutcomeUnknown":
    case "ToolCallLateResult":
      return "executor";
    default:
      return undefined;
  }
}

/** The stage's durable (its span is `stage <durable>`), by what it handled. */
function durableOf(writer: Writer, handled: WardenEvent): string {
  switch (writer) {
    case "registry":
      return DURABLE_REGISTRY;
    case "policy":
      return DURABLE_POLICY;
    case "approver":
      return DURABLE_APPROVER;
    case "executor":
      return consumerName(handled.type === "ApprovalGranted" ? "executor-granted" : "executor-allowed", handled.domain);
  }
}

/** The `service.name` of a stage's spans: the service that runs it (executors by their kind, their process names are their own). */
function serviceOf(writer: Writer, domain: string): string {
  if (writer !== "executor") return `warden-${writer}`;
  return domain === AGENT_DOMAIN ? "warden-subagent" : "warden-executor";
}

interface SpanRef {
  readonly traceId: string;
  readonly spanId: string;
}

/** One stage's handling of one event: the events it wrote, in one span. */
interface StageGroup {
  readonly writer: Writer;
  readonly durable: string;
  readonly handled: WardenEvent;
  /** The span it ran in, as its events name it; undefined when they name none of their own (that process did not trace). */
  readonly recorded: SpanRef | undefined;
  readonly writes: WardenEvent[];
}

/** A tool's run: from its result back by its duration, inside the stage span that wrote the result. */
interface ToolRun {
  readonly result: EventOfType<"ToolCallFinished" | "ToolCallLateResult">;
  readonly group: StageGroup;
  readonly claim: WardenEvent;
  readonly startMs: number;
  readonly endMs: number;
  /** Events the tool's run wrote itself (a subagent's views). */
  readonly writes: WardenEvent[];
  recorded: SpanRef | undefined;
}

interface CallShape {
  readonly call: RecordedCall;
  readonly byId: ReadonlyMap<string, WardenEvent>;
  readonly groups: StageGroup[];
  readonly groupOfWrite: ReadonlyMap<string, StageGroup>;
  readonly runs: ToolRun[];
}

/**
 * Rebuilds the OpenTelemetry spans of recorded calls from their events, as the live services
 * would have made them (docs/operations.md "Tracing"): one `stage <durable>` span per stage's
 * handling of an event, from that event's time to the last event the stage wrote, and a
 * `tool <name>` span per run that recorded a result, nested in its executor stage; parents follow
 * the events' causes, and a subagent's child calls nest under its run. Where the events name the
 * span they were written in (their `traceparent`), its ids are used, so an exported trace is the
 * live one; elsewhere ids are derived from the call id and the events, the same on every export.
 * Stages that wrote nothing (an executor skipping a call that waits for a person, the policy's
 * settle stages) left no record and get no span; nor does a run still going.
 */
export function rebuildCallSpans(calls: readonly RecordedCall[]): SpanRecord[] {
  const shapes = new Map(calls.map((c) => [c.callId, shapeOf(c)]));
  const childrenOf = new Map<string, RecordedCall[]>();
  for (const c of calls) {
    const parent = c.events[0]?.parentCallId;
    if (parent === undefined || !shapes.has(parent)) continue;
    const siblings = childrenOf.get(parent);
    if (siblings === undefined) childrenOf.set(parent, [c]);
    else siblings.push(c);
  }
  // a run's own span is named by what was written inside it (a subagent's views and child
  // requests), never by the call's other events, which carry the stages' spans or pass one on
  for (const shape of shapes.values()) {
    const named = new Set(shape.call.events.filter((e) => e.type !== "ToolViewCompiled").flatMap((e) => spanContextOfTraceparent(e.traceparent)?.spanId ?? []));
    const children = childrenOf.get(shape.call.callId) ?? [];
    const inside = [...shape.call.events.filter((e) => e.type === "ToolViewCompiled"), ...children.flatMap((c) => c.events.filter((e) => e.type === "ToolCallRequested"))];
    for (const e of inside) {
      const run = runAt(shape.runs, Date.parse(e.ts));
      if (run === undefined) continue;
      if (e.type === "ToolViewCompiled") run.writes.push(e);
      const sc = spanContextOfTraceparent(e.traceparent);
      if (run.recorded === undefined && sc !== undefined && !named.has(sc.spanId)) run.recorded = { traceId: sc.traceId, spanId: sc.spanId };
    }
  }

  const traceIds = new Map<string, string>();
  const traceIdOf = (callId: string, depth = 0): string => {
    const known = traceIds.get(callId);
    if (known !== undefined) return known;
    const shape = shapes.get(callId);
    const recorded = shape?.call.events.map((e) => spanContextOfTraceparent(e.traceparent)).find((sc) => sc !== undefined);
    const parent = shape?.call.events[0]?.parentCallId;
    const id = recorded?.traceId ?? (parent !== undefined && shapes.has(parent) && depth < MAX_WALK ? traceIdOf(parent, depth + 1) : derivedId(32, "trace", parent ?? callId));
    traceIds.set(callId, id);
    return id;
  };

  // depth bounds the walk over causes and parent calls, whatever a crafted history links
  const spanOfGroup = (shape: CallShape, g: StageGroup, depth = 0): SpanRef =>
    g.recorded ?? { traceId: contextOf(shape, g.handled, depth + 1)?.traceId ?? traceIdOf(shape.call.callId), spanId: derivedId(16, "stage", shape.call.callId, g.durable, g.handled.eventId) };
  const spanOfRun = (shape: CallShape, r: ToolRun, depth = 0): SpanRef => r.recorded ?? { traceId: spanOfGroup(shape, r.group, depth + 1).traceId, spanId: derivedId(16, "tool", shape.call.callId, r.result.eventId) };

  /** The span whose context an event carries: the one it was written in, or (written in none) its cause's. */
  function contextOf(shape: CallShape, e: WardenEvent, depth = 0): SpanRef | undefined {
    const sc = spanContextOfTraceparent(e.traceparent);
    if (sc !== undefined) return { traceId: sc.traceId, spanId: sc.spanId };
    if (depth > MAX_WALK) return undefined;
    const group = shape.groupOfWrite.get(e.eventId);
    if (group !== undefined) return spanOfGroup(shape, group, depth + 1);
    if (e.type === "ToolCallRequested") {
      const parent = e.parentCallId === undefined ? undefined : shapes.get(e.parentCallId);
      const run = parent === undefined ? undefined : runAt(parent.runs, Date.parse(e.ts));
      return parent === undefined || run === undefined ? undefined : spanOfRun(parent, run, depth + 1);
    }
    const cause = e.causationId === null ? undefined : shape.byId.get(e.causationId);
    return cause === undefined ? undefined : contextOf(shape, cause, depth + 1);
  }

  const spans: SpanRecord[] = [];
  for (const shape of shapes.values()) {
    for (const g of shape.groups) {
      const self = spanOfGroup(shape, g);
      const parent = contextOf(shape, g.handled);
      const decided = g.writes.filter((w) => w.type === "ToolPolicyChecked" || w.type === "ToolCallRejected").map(decisionAttributes);
      spans.push({
        ...self,
        ...(parent === undefined ? {} : { parentSpanId: parent.spanId, remoteParent: true }),
        name: `stage ${g.durable}`,
        service: serviceOf(g.writer, g.handled.domain),
        startMs: Date.parse(g.handled.ts),
        endMs: Math.max(...g.writes.map((w) => Date.parse(w.ts))),
        attributes: { ...callAttributes(g.handled), "warden.stage": g.durable, ...Object.assign({}, ...decided), [REBUILT_ATTRIBUTE]: true },
        events: g.writes.map(appendEvent),
      });
    }
    for (const r of shape.runs) {
      const self = spanOfRun(shape, r);
      const error = r.result.data.ok ? undefined : (r.result.data.error?.code ?? "error");
      spans.push({
        ...self,
        parentSpanId: spanOfGroup(shape, r.group).spanId,
        name: `tool ${r.claim.tool}`,
        service: serviceOf("executor", r.claim.domain),
        startMs: r.startMs,
        endMs: r.endMs,
        attributes: {
          ...callAttributes(r.claim),
          "warden.attempt": r.result.data.attempt,
          "warden.executor_id": r.claim.type === "ToolCallStarted" ? r.claim.data.executorId : r.result.data.executorId,
          "warden.ok": r.result.data.ok,
          ...(error === undefined ? {} : { "warden.error_code": error }),
          [REBUILT_ATTRIBUTE]: true,
        },
        ...(error === undefined ? {} : { error }),
        events: r.writes.map(appendEvent),
      });
    }
  }
  return spans;
}

/** How one call's events group into stage handlings and tool runs. */
function shapeOf(call: RecordedCall): CallShape {
  const byId = new Map(call.events.map((e) => [e.eventId, e]));
  const groups = new Map<string, StageGroup>();
  const groupOfWrite = new Map<string, StageGroup>();
  for (const e of call.events) {
    const writer = writerOf(e);
    const handled = writer === undefined ? undefined : handledBy(e, CONSUMES[writer], byId);
    if (writer === undefined || handled === undefined) continue;
    const durable = durableOf(writer, handled);
    const recorded = ownSpan(e, handled);
    // a redelivery that wrote in a span of its own is its own handling; unrecorded spans are one
    const key = `${durable}|${handled.eventId}|${recorded?.spanId ?? ""}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = { writer, durable, handled, recorded, writes: [] };
      groups.set(key, group);
    }
    group.writes.push(e);
    groupOfWrite.set(e.eventId, group);
  }
  const runs: ToolRun[] = [];
  for (const e of call.events) {
    if (e.type !== "ToolCallFinished" && e.type !== "ToolCallLateResult") continue;
    const group = groupOfWrite.get(e.eventId);
    if (group === undefined) continue;
    const claim = (e.causationId === null ? undefined : byId.get(e.causationId)) ?? e;
    const endMs = Date.parse(e.ts);
    runs.push({ result: e, group, claim, startMs: endMs - e.data.durationMs, endMs, writes: [], recorded: undefined });
  }
  return { call, byId, groups: [...groups.values()], groupOfWrite, runs };
}

/** The event a stage handled when it wrote `e`: the nearest cause of a type it consumes. */
function handledBy(e: WardenEvent, consumes: readonly EventType[], byId: ReadonlyMap<string, WardenEvent>): WardenEvent | undefined {
  let at: WardenEvent | undefined = e.causationId === null ? undefined : byId.get(e.causationId);
  for (let hops = 0; at !== undefined && hops < MAX_WALK; hops++) {
    if (consumes.includes(at.type)) return at;
    at = at.causationId === null ? undefined : byId.get(at.causationId);
  }
  return undefined;
}

/** The span `e` names as the one it was written in, unless it only carried on the handled event's (its writer did not trace). */
function ownSpan(e: WardenEvent, handled: WardenEvent): SpanRef | undefined {
  const sc = spanContextOfTraceparent(e.traceparent);
  if (sc === undefined) return undefined;
  if (spanContextOfTraceparent(handled.traceparent)?.spanId === sc.spanId) return undefined;
  return { traceId: sc.traceId, spanId: sc.spanId };
}

/** The run going on at `ms` (the last one started by then), else the first. */
function runAt(runs: readonly ToolRun[], ms: number): ToolRun | undefined {
  return runs.filter((r) => r.startMs <= ms).at(-1) ?? runs[0];
}

/** A written decision or refusal's grade, decision and rule ids, as a live stage notes them on its span. */
function decisionAttributes(e: WardenEvent): SpanRecord["attributes"] {
  const all = callAttributes(e);
  return Object.fromEntries(["warden.grade", "warden.decision", "warden.rule_ids"].filter((k) => all[k] !== undefined).map((k) => [k, all[k]]));
}

function appendEvent(e: WardenEvent): SpanRecord["events"][number] {
  return { name: "warden.append", timeMs: Date.parse(e.ts), attributes: { "warden.event_type": e.type, "warden.event_id": e.eventId, "warden.append_result": "written" } };
}

/** A stable id of `length` hex digits from its parts (never all zeros, which OpenTelemetry reads as "no id"). */
function derivedId(length: 16 | 32, ...parts: string[]): string {
  const hex = sha256Hex(`warden-rebuilt-span/${parts.join("/")}`).slice(0, length);
  return /^0+$/.test(hex) ? `${"0".repeat(length - 1)}1` : hex;
}
