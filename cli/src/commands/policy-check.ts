import type { ToolRecord } from "@warden/contracts/descriptor";
import { checkPolicyText, type PolicyCheck } from "@warden/policy-engine";
import { onePositional } from "../args.js";
import type { POLICY_CHECK_OPTIONS } from "../command-list.js";
import { checkSummary, principalsOfHome, type CheckedAgainst } from "../domain/policy-format.js";
import { CliError, EXIT_FAILED, EXIT_OK, EXIT_UNREACHABLE, usageError } from "../errors.js";
import type { Command } from "../io.js";
import { emit } from "../output.js";
import { diagnosticLine, readPolicyText, registryTools } from "../policy-file.js";
import { readToolsFile } from "../tools-file.js";

/**
 * `warden policy check FILE [--offline | --tools FILE] [--strict]`: every error at
 * `file:line:column`, then the lint; tool and domain names against the registry (or the tools
 * file), principals against WARDEN_HOME's identities when there is a home. Exit 1 on errors, and
 * with --strict on warnings too.
 */
export const policyCheckCommand: Command<typeof POLICY_CHECK_OPTIONS> = async ({ values, positionals }, io) => {
  const path = onePositional(positionals, "FILE (a JSON or YAML policy document)");
  if (values.offline && values.tools !== undefined) throw usageError("--offline and --tools exclude each other: --tools checks names against the file");
  const text = await readPolicyText(io, path);
  let check = checkPolicyText(text);
  const against: CheckedAgainst = {
    tools: { source: "skipped", reason: values.offline ? "--offline" : "the document is invalid" },
    identities: { source: "skipped", reason: "no WARDEN_HOME" },
  };
  // an invalid document has nothing to lint: no connection for it
  if (check.ok) {
    let tools: ToolRecord[] | undefined;
    if (values.tools !== undefined) {
      tools = await readToolsFile(io, values.tools);
      against.tools = { source: "file", file: values.tools, count: tools.length };
    } else if (!values.offline) {
      const { withBus } = await import("../connect.js");
      try {
        tools = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, registryTools);
      } catch (err) {
        if (err instanceof CliError && err.exitCode === EXIT_UNREACHABLE) {
          throw new CliError(err.code, `${err.message}; or check without the registry: --offline (tool names unchecked) or --tools FILE`, err.exitCode);
        }
        throw err;
      }
      against.tools = { source: "registry", count: tools.length };
    }
    const { existingHome } = await import("../connect.js");
    const home = existingHome(io);
    const identities = home === undefined ? undefined : principalsOfHome(home.env());
    if (home !== undefined && identities !== undefined) against.identities = { source: "warden_home", dir: home.dir, count: identities.length };
    check = checkPolicyText(text, {
      ...(tools === undefined ? {} : { tools: tools.map((t) => t.descriptor) }),
      ...(identities === undefined ? {} : { identities }),
    });
  }
  const failed = !check.ok || (values.strict === true && check.warnings.length > 0);
  emit(io, values.json ?? false, report(path, check, against, failed), () =>
    [...check.errors, ...check.warnings].sort((a, b) => a.line - b.line || a.column - b.column).map((d) => diagnosticLine(path, d)).concat(checkSummary(path, check, against)).join("\n"),
  );
  return failed ? EXIT_FAILED : EXIT_OK;
};

function report(file: string, check: PolicyCheck, against: CheckedAgainst, failed: boolean) {
  return {
    ok: !failed,
    file,
    format: check.format,
    ...(check.document === undefined ? {} : { version: check.document.version }),
    errors: check.errors,
    warnings: check.warnings,
    checked: against,
  };
}
