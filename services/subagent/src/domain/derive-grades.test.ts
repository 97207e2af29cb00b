import { describe, expect, it } from "vitest";
import type { Grade } from "@warden/contracts/descriptor";
import { deriveGrades } from "./derive-grades.js";

const registered = new Map<string, Grade>([
  ["kb.search", "read"],
  ["ticket.submit", "write"],
  ["customer.message", "send"],
]);

describe("deriveGrades", () => {
  it("grades a subagent by the highest grade among its allowed tools", () => {
    const d = deriveGrades([{ name: "agent.a", allowedTools: ["kb.search", "ticket.submit"] }, { name: "agent.b", allowedTools: ["kb.search"] }], registered);
    expect(Object.fromEntries(d.grades)).toEqual({ "agent.a": "write", "agent.b": "read" });
    expect(d.missing).toEqual([]);
  });

  it("raises subagents that allow each other together", () => {
    const d = deriveGrades(
      [
        { name: "agent.a", allowedTools: ["agent.b"] },
        { name: "agent.b", allowedTools: ["agent.a", "customer.message"] },
      ],
      registered,
    );
    expect(Object.fromEntries(d.grades)).toEqual({ "agent.a": "send", "agent.b": "send" });
  });

  it("names allowed tools nobody registered", () => {
    expect(deriveGrades([{ name: "agent.a", allowedTools: ["kb.search", "web.search"] }], registered).missing).toEqual(["web.search"]);
  });
});
