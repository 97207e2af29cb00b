import { describe, expect, it } from "vitest";
import { levelOf } from "./action-type.js";
import { lintDescriptor, ToolDescriptorSchema, type ToolDescriptorInput } from "./descriptor.js";

const tool = (over: Partial<ToolDescriptorInput>) =>
  ToolDescriptorSchema.parse({ name: "x.y", version: "1.0.0", title: "X", description: "Use when a test needs a tool.", inputSchema: { type: "object" }, grade: "read", ...over });
const rules = (over: Partial<ToolDescriptorInput>) => lintDescriptor(tool(over)).map((i) => i.rule);

describe("permission levels", () => {
  it("derives L0–L5 from action type, grade and flags", () => {
    expect(levelOf(tool({}))).toBe("L0");
    expect(levelOf(tool({ openWorld: true }))).toBe("L3");
    expect(levelOf(tool({ actionType: "compute" }))).toBe("L1");
    expect(levelOf(tool({ grade: "write" }))).toBe("L2");
    expect(levelOf(tool({ grade: "write", openWorld: true }))).toBe("L4");
    expect(levelOf(tool({ grade: "send", actionType: "external_send", openWorld: true }))).toBe("L4");
    expect(levelOf(tool({ grade: "write", destructive: true }))).toBe("L5");
    expect(levelOf(tool({ grade: "write", actionType: "admin" }))).toBe("L5");
    expect(levelOf(tool({ grade: "write", level: "L5", destructive: true }))).toBe("L5");
  });

  it("refuses an action type that contradicts the grade, and a level below what the tool is", () => {
    expect(rules({ actionType: "search" })).toEqual([]);
    expect(rules({ grade: "write", actionType: "search" })).toEqual(["action-type-grade"]);
    expect(rules({ actionType: "delete" })).toEqual(["action-type-grade"]);
    expect(rules({ grade: "write", actionType: "external_send" })).toEqual(["action-type-grade"]);
    expect(rules({ grade: "write", level: "L0" })).toEqual(["level-flags"]);
    expect(rules({ grade: "write", level: "L5" })).toEqual(["level-flags"]);
    expect(rules({ grade: "write", level: "L4" })).toEqual([]);
    expect(rules({ grade: "write", destructive: true, level: "L5" })).toEqual([]);
    // a read may be raised to a reading level, never to one that writes
    expect(rules({ level: "L3" })).toEqual([]);
    expect(rules({ level: "L2" })).toEqual(["level-flags"]);
    expect(rules({ level: "L4" })).toEqual(["level-flags"]);
  });
});
