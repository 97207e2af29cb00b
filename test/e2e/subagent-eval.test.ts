import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedOpenAi } from "@warden/testing";
import { useTestWarden } from "../support/use-test-warden.js";
import { toolNames } from "./subagent-fixture.js";

const EVAL = join(import.meta.dirname, "../../services/subagent/dist/eval.js");

function runEvalScript(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { OPENAI_BASE_URL: _u, OPENAI_API_KEY: _k, NATS_URL: _n, NATS_CREDS: _c, ...rest } = process.env;
  const child = spawn(process.execPath, [EVAL], { env: { ...rest, ...env } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((done) => child.once("exit", (code) => done({ code, stdout, stderr })));
}

describe("npm run eval: tool-choice metrics from golden prompts", () => {
  const t = useTestWarden({ demo: true }, async (w) => ({
    model: w.track(await startScriptedOpenAi()),
  }));

  it("says it needs OPENAI_BASE_URL and exits 0 without an endpoint", async () => {
    const r = await runEvalScript({});
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/needs a model endpoint: set OPENAI_BASE_URL/);
    expect(r.stdout).toMatch(/Nothing was evaluated/);
  });

  it("asks the model every golden prompt with the llm view's tools and reports precision, recall and argument validity", async () => {
    const call = (name: string, args: unknown) => ({ toolCalls: [{ name, arguments: args as Record<string, unknown> }] });
    t.model.script("m-eval", [
      call("kb__search", { query: "refund for damaged item" }),
      call("kb__search", { query: "login" }),
      call("session__fetch", { id: "2" }),
      { content: "I would need to read it." },
      call("ticket__fill", { ticketId: "T-42", fields: { priority: "high" } }),
      { content: "You're welcome!" },
      { content: "51" },
      call("customer__message", { customerId: "C-7", text: "refund done" }),
      call("kb__search", { query: "reindex" }),
    ]);
    // the eval asks for the ToolView as the agent it evaluates, with that agent's credentials
    const creds = await t.w.nats.credsOf({ kind: "agent", name: "support-bot" });
    const r = await runEvalScript({ OPENAI_BASE_URL: t.model.baseURL, OPENAI_API_KEY: "k", NATS_URL: t.w.nats.url, NATS_CREDS: creds, WARDEN_EVAL_MODEL: "m-eval" });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const requests = t.model.requestsFor("m-eval");
    expect(requests).toHaveLength(9);
    const offered = toolNames(requests[0]!.body);
    expect(offered).toEqual(expect.arrayContaining(["kb__search", "session__fetch", "ticket__fill"]));
    expect(offered).not.toContain("customer__message");
    expect(offered).not.toContain("ticket__submit");
    expect(offered).not.toContain("kb__reindex");
    expect(r.stdout).toMatch(/tool-choice precision\s+67%/);
    expect(r.stdout).toMatch(/tool-choice recall\s+80%/);
    expect(r.stdout).toMatch(/abstention\s+50%/);
    expect(r.stdout).toMatch(/argument validity\s+67%/);
    expect(r.stdout).toMatch(/argument match\s+50%/);
    expect(r.stdout).toMatch(/MISS\s+session-3/);
    expect(r.stdout).toMatch(/MISS\s+none-send\s+expected nothing; called customer__message \(invalid args\)/);
  });
});
