import { fail, ok, type Outcome } from "@warden/contracts/errors";
import { descriptorHash, lintDescriptor, ToolDescriptorSchema, type ToolDescriptor } from "@warden/contracts/descriptor";
import { type JsonObject, type JsonValue } from "@warden/contracts/json";

export interface ParsedDescriptor {
  readonly descriptor: ToolDescriptor;
  readonly descriptorHash: string;
}

export type SchemaCheck = (schema: JsonObject) => Outcome<void>;

interface Problem {
  readonly index: number;
  readonly tool: string;
  readonly path: string;
  readonly rule?: string;
  readonly message: string;
}

function label(raw: unknown): string {
  if (raw === null || typeof raw !== "object") return "(not an object)";
  const r = raw as Record<string, unknown>;
  const name = typeof r["name"] === "string" ? r["name"] : "(no name)";
  return typeof r["version"] === "string" ? `${name}@${r["version"]}` : name;
}

function problemsOf(raw: unknown, index: number, checkSchema: SchemaCheck): Problem[] | ParsedDescriptor {
  const tool = label(raw);
  const parsed = ToolDescriptorSchema.safeParse(raw);
  if (!parsed.success) {
    return parsed.error.issues.map((i) => ({ index, tool, path: i.path.join(".") || "(root)", message: i.message }));
  }
  const d = parsed.data;
  const problems: Problem[] = lintDescriptor(d).map((l) => ({ index, tool, path: "(lint)", rule: l.rule, message: l.message }));
  for (const field of ["inputSchema", "outputSchema"] as const) {
    const schema = d[field];
    if (schema === undefined) continue;
    const compiled = checkSchema(schema);
    if (!compiled.ok) problems.push({ index, tool, path: field, message: compiled.error.message });
  }
  return problems.length > 0 ? problems : { descriptor: d, descriptorHash: descriptorHash(d) };
}

function describe(p: Problem): string {
  const where = p.rule === undefined ? `${p.path}: ` : `lint rule ${p.rule}: `;
  return `descriptors[${p.index}] ${p.tool}: ${where}${p.message}`;
}

/**
 * Parses a batch of descriptors with the contract schema, the registry lint and an ajv compile
 * of their schemas. All or nothing: one bad descriptor refuses the batch, naming every problem.
 * The same name+version twice in one batch must carry the same content.
 */
export function parseDescriptors(raw: readonly unknown[], checkSchema: SchemaCheck): Outcome<ParsedDescriptor[]> {
  const problems: Problem[] = [];
  const byKey = new Map<string, ParsedDescriptor>();
  raw.forEach((item, index) => {
    const r = problemsOf(item, index, checkSchema);
    if (Array.isArray(r)) problems.push(...r);
    else {
      const key = `${r.descriptor.name}@${r.descriptor.version}`;
      const seen = byKey.get(key);
      if (seen && seen.descriptorHash !== r.descriptorHash) {
        problems.push({ index, tool: key, path: "(batch)", message: "the batch holds two different descriptors for this name and version" });
      }
      byKey.set(key, r);
    }
  });
  if (problems.length > 0) {
    const issues: JsonValue[] = problems.map((p) => ({
      index: p.index,
      tool: p.tool,
      path: p.path,
      message: p.message,
      ...(p.rule === undefined ? {} : { rule: p.rule }),
    }));
    return fail("DESCRIPTOR_INVALID", problems.map(describe).join("; "), { issues });
  }
  return ok([...byKey.values()]);
}
