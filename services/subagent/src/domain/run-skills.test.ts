import { describe, expect, it } from "vitest";
import type { SkillRecord } from "@warden/contracts/descriptor";
import { runSkills } from "./run-skills.js";

const HASH = `sha256:${"0".repeat(64)}`;

function skill(name: string, version: string, description: string, tools: SkillRecord["tools"], triggers: string[] = []): SkillRecord {
  return {
    name,
    version,
    description,
    triggers,
    instructions: `How to do ${name}, version ${version}.`,
    domain: `skill-${name}`,
    tools,
    files: [{ path: "SKILL.md", sha256: HASH, bytes: 1 }],
    hash: HASH,
    addedAt: "2025-01-01T00:00:00.000Z",
  };
}

const REFUND_1 = skill("refund-check", "1.0.0", "Use when a customer asks for a refund of a purchase.", [], ["refund"]);
const REFUND_2 = skill(
  "refund-check",
  "1.2.0",
  "Use when a customer asks for a refund of a purchase.",
  [
    { name: "skill-refund-check.window", version: "1.2.0", grade: "read" },
    { name: "skill-refund-check.issue", version: "1.2.0", grade: "write" },
    { name: "skill-refund-check.notify", version: "1.2.0", grade: "send" },
  ],
  ["refund"],
);
const SHIPPING = skill("shipping", "1.0.0", "Use when a parcel is late or lost: carriers and claims.", [{ name: "skill-shipping.track", version: "1.0.0", grade: "read" }]);

describe("runSkills", () => {
  it("activates the newest version of a matching skill and offers its scripts up to the subagent's grade", () => {
    const r = runSkills([REFUND_1, REFUND_2, SHIPPING], undefined, "write", "The customer wants a refund for the blender");
    expect(r.activated.map((s) => `${s.name}@${s.version}`)).toEqual(["refund-check@1.2.0"]);
    expect(r.prompt).toContain("How to do refund-check, version 1.2.0.");
    expect(r.tools).toEqual(["skill-refund-check.window", "skill-refund-check.issue"]);
    expect(r.hidden).toEqual([expect.objectContaining({ name: "skill-refund-check.notify", reason: "above_subagent_grade" })]);
  });

  it("never raises a read subagent: a skill's write and send scripts are not asked for", () => {
    const r = runSkills([REFUND_2], undefined, "read", "refund please");
    expect(r.tools).toEqual(["skill-refund-check.window"]);
    expect(r.hidden.map((h) => h.name)).toEqual(["skill-refund-check.issue", "skill-refund-check.notify"]);
  });

  it("gives nothing for an unrelated task, or for skills the subagent may not use", () => {
    expect(runSkills([REFUND_2, SHIPPING], undefined, "send", "summarise the meeting")).toEqual({ activated: [], prompt: "", tools: [], hidden: [] });
    expect(runSkills([REFUND_2, SHIPPING], ["shipping"], "send", "refund please").activated).toEqual([]);
  });
});
