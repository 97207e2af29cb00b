/** A read tool's manifest entry taking no args; `extra` adds its adapter section (cli, http) and secrets, or overrides. */
export function readToolEntry(name: string, description: string, extra: Record<string, unknown>) {
  return {
    name,
    version: "1.0.0",
    title: name,
    description,
    grade: "read",
    inputSchema: { type: "object", properties: {} },
    ...extra,
  };
}
