import { z } from "zod";
import { requestRpc, type Bus, type Logger } from "@warden/bus";
import { SUBJECT_REGISTRY_LIST } from "@warden/contracts/subjects";
import { gradeRank, ToolRecordSchema, type Grade } from "@warden/contracts/descriptor";
import { deriveGrades, type GradeInputs } from "./domain/derive-grades.js";

const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 2_000;

/** A start that cannot go on: allowed tools the registry never showed, or no registry at all. */
export class SubagentStartError extends Error {
  override readonly name = "SubagentStartError";
}

/** The highest grade each registered tool name has ever had (any version): the safe side. */
async function registeredGrades(bus: Bus, timeoutMs: number): Promise<Map<string, Grade> | string> {
  const reply = await requestRpc(bus, SUBJECT_REGISTRY_LIST, {}, timeoutMs);
  if (!reply.ok) return `${reply.error.code}: ${reply.error.message}`;
  const records = z.array(ToolRecordSchema).safeParse(reply.value);
  if (!records.success) return "the registry's list reply has an unexpected shape";
  const grades = new Map<string, Grade>();
  for (const r of records.data) {
    const had = grades.get(r.descriptor.name);
    if (had === undefined || gradeRank(r.descriptor.grade) > gradeRank(had)) grades.set(r.descriptor.name, r.descriptor.grade);
  }
  return grades;
}

/**
 * Each subagent's grade, from its allowed tools as the registry has them. Waits (with backoff)
 * until every allowed tool is registered: their executors may start after this service.
 */
export async function resolveGrades(bus: Bus, log: Logger, agents: readonly GradeInputs[], timeoutMs: number): Promise<ReadonlyMap<string, Grade>> {
  const deadline = Date.now() + timeoutMs;
  let backoff = FIRST_BACKOFF_MS;
  for (;;) {
    const left = deadline - Date.now();
    const registered = await registeredGrades(bus, Math.max(100, Math.min(5_000, left)));
    let problem: string;
    if (typeof registered === "string") problem = registered;
    else {
      const derived = deriveGrades(agents, registered);
      if (derived.missing.length === 0) return derived.grades;
      problem = `allowed tools not registered: ${derived.missing.join(", ")}`;
    }
    if (Date.now() + backoff > deadline) throw new SubagentStartError(`subagents cannot start: ${problem}`);
    log.info({ problem, retryInMs: backoff }, "waiting for the subagents' allowed tools");
    await new Promise((r) => setTimeout(r, backoff));
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
}
