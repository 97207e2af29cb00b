import { type WardenEvent } from "@warden/contracts/events";
import { BUCKET_APPROVALS, BUCKET_BUDGETS, BUCKET_CALLS, isSafeToken } from "@warden/contracts/subjects";
import { ApprovalInboxRecordSchema, BudgetModelSchema, type ApprovalInboxRecord, type BudgetModel } from "@warden/contracts/read-models";
import type { z } from "zod";
import { CallModelSchema, type CallModel } from "./call-model.js";
import { applyApprovalEvent, approvalKeysOf } from "./reduce-approval.js";
import { applyBudgetEvent, budgetKeysOf, isBudgetModelKey } from "./reduce-budget.js";
import { applyCallEvent, linkChildCall } from "./reduce-call.js";

export const READ_MODEL_NAMES = ["calls", "approvals", "budgets"] as const;
export type ReadModelName = (typeof READ_MODEL_NAMES)[number];

/** One read model: which keys an event touches and how it changes the model under each. */
export interface ReadModelSpec<M extends { readonly seq: number }> {
  readonly name: ReadModelName;
  readonly bucket: string;
  readonly schema: z.ZodType<M>;
  keysOf(event: WardenEvent): string[];
  /** Pure; undefined means "no model under this key (yet)". */
  apply(model: M | undefined, key: string, event: WardenEvent, seq: number): M | undefined;
  /** Keys of the bucket this read model owns (other writers may share a bucket). */
  ownsKey(key: string): boolean;
}

export const CALLS_MODEL: ReadModelSpec<CallModel> = {
  name: "calls",
  bucket: BUCKET_CALLS,
  schema: CallModelSchema,
  keysOf: (e) =>
    e.type === "ToolCallRequested" && e.parentCallId !== undefined && e.parentCallId !== e.callId ? [e.callId, e.parentCallId] : [e.callId],
  apply: (model, key, e, seq) => (key === e.callId ? applyCallEvent(model, e, seq) : linkChildCall(model, e, seq)),
  ownsKey: isSafeToken,
};

export const APPROVALS_MODEL: ReadModelSpec<ApprovalInboxRecord> = {
  name: "approvals",
  bucket: BUCKET_APPROVALS,
  schema: ApprovalInboxRecordSchema,
  keysOf: approvalKeysOf,
  apply: (model, _key, e, seq) => applyApprovalEvent(model, e, seq),
  ownsKey: isSafeToken,
};

export const BUDGETS_MODEL: ReadModelSpec<BudgetModel> = {
  name: "budgets",
  bucket: BUCKET_BUDGETS,
  schema: BudgetModelSchema,
  keysOf: budgetKeysOf,
  apply: applyBudgetEvent,
  ownsKey: isBudgetModelKey,
};

export type AnyReadModelSpec = ReadModelSpec<CallModel> | ReadModelSpec<ApprovalInboxRecord> | ReadModelSpec<BudgetModel>;

/** Every read model, in a fixed order. */
export const READ_MODELS: readonly AnyReadModelSpec[] = [CALLS_MODEL, APPROVALS_MODEL, BUDGETS_MODEL];
