import { describe, expect, it } from "vitest";
import { type WardenEvent } from "@warden/contracts/events";
import { subjectOfEvent } from "@warden/contracts/subjects";
import { SYNTHETIC_OUTCOMES, syntheticCall } from "@warden/testing";
import { whoMayWrite, writerProblem, writersOf } from "./writer-roles.js";

describe("who writes which event, against the permission matrix", () => {
  const events: WardenEvent[] = SYNTHETIC_OUTCOMES.flatMap((outcome, i) => syntheticCall({ callId: `w${i}`, outcome }));

  it("finds, for every event a service writes, a role the matrix lets publish it that is its writer", () => {
    for (const e of events) expect(writerProblem(subjectOfEvent(e), e), `${e.type}`).toBeUndefined();
  });

  it("refuses a refusal written on a subject its stage may not publish", () => {
    const rejected = events.find((e) => e.type === "ToolCallRejected" && e.data.stage === "registry")!;
    const asExecutor = { ...rejected, data: { ...(rejected.data as object), stage: "executor" } } as WardenEvent;
    expect(writerProblem(subjectOfEvent(rejected), asExecutor)).toMatch(/executor-stage ToolCallRejected is written by executor or subagent, but only registry, policy, approver may publish/);
    expect(writersOf(asExecutor)).toEqual(["executor", "subagent"]);
  });

  it("says only the admin may write where no role may", () => {
    expect(whoMayWrite("warden.notary.checkpoint")).toEqual([]);
    expect(whoMayWrite("warden.call.kb.c1.ToolArgsValidated")).toEqual(["registry"]);
    expect(whoMayWrite("warden.call.kb.c1.ToolCallRequested.bot")).toEqual(["caller", "subagent"]);
  });
});
