import { describe, expect, it } from "vitest";
import { initialMessages } from "./prompt.js";

const budget = { maxTurns: 4, maxToolCalls: 3, maxTokens: 500, timeoutMs: 1_500 };

describe("initialMessages", () => {
  it("gives the model its instructions with its limits, then the task alone", () => {
    const [system, user] = initialMessages("Be helpful.", budget, { task: "find it" }, []);
    expect(system).toEqual({ role: "system", content: expect.stringMatching(/^Be helpful\.\n\n.*4 turns and 3 tool calls/s) });
    expect(user).toEqual({ role: "user", content: "find it" });
  });

  it("adds the caller's summary or the referenced results it inherits", () => {
    const [, user] = initialMessages("x", budget, { task: "t", summary: "customer is upset" }, [{ callId: "c1", text: "kb.search: []" }]);
    expect(user?.content).toBe("t\n\nContext from the caller:\ncustomer is upset\n\nResults of earlier calls in this run:\n[c1] kb.search: []");
  });

  it("starts the system prompt with the active skills' instructions, before the subagent's own", () => {
    const [system] = initialMessages("Be helpful.", budget, { task: "t" }, [], "Skills for this task: …\n\n## Skill pdf 1.0.0\n\nRead it first.");
    expect(system?.content).toMatch(/^Skills for this task: …\n\n## Skill pdf 1\.0\.0\n\nRead it first\.\n\n---\n\nBe helpful\.\n\n/);
  });
});
