import { type Outcome, fail, ok } from "@warden/contracts/errors";
import { PolicyDocumentSchema, type PolicyDocument } from "@warden/contracts/policy";
import { parse as parseYaml } from "yaml";

/** Parses a policy document from JSON or YAML text; errors name the path that is wrong. */
export function parsePolicyDocument(text: string): Outcome<PolicyDocument> {
  let raw: unknown;
  try {
    raw = parseJsonOrYaml(text);
  } catch (err) {
    return fail("INVALID_REQUEST", `policy document is not valid JSON or YAML: ${(err as Error).message}`);
  }
  const parsed = PolicyDocumentSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    return fail("INVALID_REQUEST", `invalid policy document: ${issues.join("; ")}`, { issues });
  }
  return ok(parsed.data);
}

/** JSON first (exact, duplicate keys allowed); a YAML flow mapping also starts with `{`, so fall back. */
function parseJsonOrYaml(text: string): unknown {
  if (text.trimStart().startsWith("{")) {
    try {
      return JSON.parse(text);
    } catch {
      return parseYaml(text);
    }
  }
  return parseYaml(text);
}
