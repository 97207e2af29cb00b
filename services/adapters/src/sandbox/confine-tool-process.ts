import { fail, ok, type Outcome } from "@warden/contracts/errors";
import { confineCommand } from "./confine-command.js";
import { sandboxLine, type SandboxedProcess, type SandboxLine, type ToolSandbox } from "./tool-sandbox.js";
import type { UnshareLayer } from "./unshare.js";

/** How the adapters confine what they start: the sandbox, and what it must hide. */
export interface ToolConfinement {
  readonly toolSandbox: ToolSandbox;
  /** WARDEN_HOME, the secrets file, key folders, the adapters' own credentials. */
  readonly hidden: readonly string[];
}

/**
 * The command line of a process the adapters start for a tool: inside the tools' sandbox, or — only
 * for a manifest entry marked `trusted` — as today's unconfined command with the PID and network
 * namespace layers the machine allows. Never unconfined for an untrusted one: SANDBOX_UNAVAILABLE.
 */
export function confineToolProcess(
  c: ToolConfinement,
  p: Omit<SandboxedProcess, "hidden"> & { readonly trusted: boolean; readonly layers: readonly UnshareLayer[] },
): Outcome<SandboxLine> {
  if (p.trusted) {
    const line = confineCommand(p.command, p.args, p.layers);
    return ok({ ...line, cwd: p.cwd });
  }
  if (!c.toolSandbox.available) {
    return fail("SANDBOX_UNAVAILABLE", `this machine cannot confine the command (${c.toolSandbox.reason}); it runs only if its manifest marks it trusted: true`);
  }
  return ok(sandboxLine(c.toolSandbox, { ...p, hidden: c.hidden }));
}
