import type { EventOfType, EventType } from "@warden/contracts/events";
import type { CallModel } from "./call-model.js";
import type { CallState, StateBefore } from "./call-state.js";
import type { CallViolationKind } from "./violations.js";

/** The model an event is being applied to: a copy, so a step may write it in place. */
export type CallDraft = { -readonly [K in keyof CallModel]: CallModel[K] };

/** Records a violation of the event being applied. */
export type Flag = (kind: CallViolationKind, detail: string) => void;

export interface StepContext {
  /** The model before the event; undefined for a call's first event. */
  readonly model: CallModel | undefined;
  readonly before: StateBefore;
  readonly flag: Flag;
}

export interface StepResult {
  /** The state the event moves an allowed call to; absent keeps it. */
  readonly next?: CallState;
  /** The step's own check already named what is wrong with the transition. */
  readonly named?: boolean;
}

/** What one event type does to a call model, besides the checks every event gets. */
export type CallStep<K extends EventType> = (m: CallDraft, event: EventOfType<K>, c: StepContext) => StepResult;
