import { type EventType } from "@warden/contracts/events";
import { parseCallSubject } from "@warden/contracts/subjects";
import { lazyChild } from "./lazy-logger.js";
import type { Logger } from "./logger.js";
import type { JsMsg } from "./nats-types.js";
import { decodeStageMessage, type StageDecoding } from "./stage-decode.js";
import type { StageSettler } from "./stage-settler.js";
import type { ReplayWatch } from "./replay-watch.js";
import type { StageContext } from "./stage-spec.js";

export interface StageMessageDeps<T extends EventType> {
  readonly log: Logger;
  readonly decoding: StageDecoding<T>;
  readonly settler: StageSettler<T>;
  readonly maxDeliver: number;
  /** Which deliveries may have been answered before (see ReplayWatch). */
  readonly replays: Pick<ReplayWatch, "possibleReplay">;
  /** Aborted when the runner stops. */
  readonly signal: AbortSignal;
}

/** Decodes one delivered message, hands it to the stage and settles it. */
export async function processStageMessage<T extends EventType>(m: JsMsg, d: StageMessageDeps<T>): Promise<void> {
  const deliveryCount = m.info.deliveryCount;
  // child loggers are made only when something is logged: making two per message cost ~3% CPU,
  // and a handler's `ctx.log.debug(...)` with debug off made one for every message (issue 27)
  let bindings: Record<string, unknown> = { seq: m.seq, deliveryCount };
  let childLog: Logger | undefined;
  const mlogOf = () => (childLog ??= lazyChild(d.log, () => bindings));
  const subject = parseCallSubject(m.subject);
  if (subject === undefined || !d.decoding.eventTypes.some((t) => subject.types.includes(t))) {
    return d.settler.deadLetter(m, `unexpected subject ${m.subject}`, mlogOf());
  }
  const possibleReplay = d.replays.possibleReplay(m);
  const contextOf = (): StageContext => ({
    get log() {
      return mlogOf();
    },
    subject,
    streamSeq: m.seq,
    deliveryCount,
    lastAttempt: deliveryCount >= d.maxDeliver,
    possibleReplay,
    signal: d.signal,
  });
  const decoded = decodeStageMessage(m, d.decoding);
  if (decoded.kind === "skip") return m.ack();
  if (decoded.kind === "undecodable") return d.settler.undecodable(m, decoded.problem, contextOf());
  const event = decoded.event;
  bindings = { ...bindings, callId: event.callId, eventId: event.eventId };
  return d.settler.handle(m, event, contextOf());
}
