import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCallHistory, readEvent, readOutcome } from "@warden/bus";
import { TERMINAL_EVENT_TYPES, type WardenEvent } from "@warden/contracts/events";
import { type IdentitySpecInput } from "@warden/contracts/permissions";
import { eventually } from "@warden/testing";
import { PAUSABLE_EXECUTOR_ACK_WAIT_MS, pausableTool } from "../support/pausable-executor.js";
import { startTestWarden, type TestWarden } from "../support/warden.js";

const PAUSABLE_EXECUTOR = fileURLToPath(new URL("../support/pausable-executor.ts", import.meta.url));
const CALLS = 8;

describe("an executor frozen mid-run (SIGSTOP) while another copy takes over", () => {
  let w: TestWarden;
  beforeAll(async () => {
    w = await startTestWarden();
  });
  afterAll(async () => w?.stop());

  it("ends every call exactly once; the frozen copy's late results are annotations, not second outcomes", async () => {
    const sideEffects = join(mkdtempSync(join(tmpdir(), "warden-paused-")), "runs.log");
    const executor: IdentitySpecInput = { kind: "executor", name: "pausy-executor", domains: ["pausy"] };
    const frozen = spawn(process.execPath, [PAUSABLE_EXECUTOR], {
      env: { ...process.env, NATS_URL: w.nats.url, NATS_CREDS: await w.nats.credsOf(executor), WARDEN_APPROVER_PUBLIC_KEYS: w.approverKeys.join(","), PAUSABLE_SIDE_EFFECTS: sideEffects },
      stdio: ["ignore", "pipe", "ignore"],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        frozen.stdout!.on("data", (b: Buffer) => b.toString().includes("ready") && resolve());
        frozen.once("exit", (code) => reject(new Error(`pausable executor exited ${code}`)));
      });
      const planner = await w.agent("planner");
      const calls = Array.from({ length: CALLS }, (_, n) => planner.call("pausy.send_note", { n }, { mode: "plan", wait: true, timeoutMs: 30_000 }));
      const callIds = await eventually(async () => {
        const ids = (await w.bus.jsm.streams.info("WARDEN_CALLS", { subjects_filter: "warden.call.pausy.*.ToolCallStarted" })).state.subjects;
        expect(Object.keys(ids ?? {})).toHaveLength(CALLS);
        return Object.keys(ids ?? {}).map((s) => s.split(".")[3]!);
      }, 15_000);
      // every call is claimed; a moment later each is inside its 1 s run in the process that freezes
      await new Promise((r) => setTimeout(r, 300));
      frozen.kill("SIGSTOP");
      // the survivor connects as the same executor identity as the frozen copy
      await w.startExecutor("pausy", [pausableTool(sideEffects, 0)], { connectionName: "survivor", executorId: "survivor", claimGraceMs: 200, ackWaitMs: PAUSABLE_EXECUTOR_ACK_WAIT_MS });
      const ended = await Promise.all(calls);
      expect(ended.map((r) => r.status)).toEqual(Array(CALLS).fill("outcome_unknown"));
      frozen.kill("SIGCONT");
      // the frozen copy wakes up, finishes what it was running, and finds each call already ended
      for (const callId of callIds) {
        await eventually(async () => expect(await readEvent(w.bus, "pausy", callId, "ToolCallLateResult")).toBeDefined(), 15_000);
      }
      for (const callId of callIds) {
        const events = (await readCallHistory(w.bus, callId)).flatMap((h): WardenEvent[] => (h.event ? [h.event] : []));
        const terminals = events.filter((e) => (TERMINAL_EVENT_TYPES as readonly string[]).includes(e.type));
        expect(terminals.map((e) => e.type)).toEqual(["ToolCallOutcomeUnknown"]);
        expect((await readOutcome(w.bus, "pausy", callId))?.type).toBe("ToolCallOutcomeUnknown");
      }
      // each call ran once, in the frozen process; the survivor never re-runs a run-once tool
      const marks = existsSync(sideEffects) ? readFileSync(sideEffects, "utf8").trim().split("\n").filter(Boolean) : [];
      expect(marks.sort()).toEqual([...callIds].sort());
    } finally {
      frozen.kill("SIGKILL");
    }
  }, 90_000);
});
