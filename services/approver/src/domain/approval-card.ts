import { type DelegationLink } from "@warden/contracts/events";
import { levelOf, type Grade, type CallMode, type ToolDescriptor } from "@warden/contracts/descriptor";
import { type PolicyDocument } from "@warden/contracts/policy";
import { mayDecide } from "@warden/policy-engine";

/** "alice via agent.triage": the person or plan at the top of the chain, then each delegating tool. */
export function onBehalfOf(requester: string, chain: readonly DelegationLink[]): string {
  const top = chain[0];
  if (top === undefined) return requester;
  return [top.principal, ...chain.map((l) => l.tool)].join(" via ");
}

export interface RiskFacts {
  readonly grade: Grade;
  readonly mode: CallMode;
  readonly descriptor: ToolDescriptor | undefined;
  readonly chain: readonly DelegationLink[];
}

/** Plain reasons a person should look closely, from facts the stream and the registry hold. */
export function riskReasons(f: RiskFacts): string[] {
  const out: string[] = [];
  if (f.grade === "send") out.push("send: cannot be undone, or is seen outside at once");
  const d = f.descriptor;
  if (d?.destructive) out.push("destructive: deletes or overwrites data");
  const level = d === undefined ? undefined : levelOf(d);
  if (level === "L5") out.push("L5 (destructive or admin): decided call by call, never for a session");
  else if (level === "L4") out.push("L4 (external write): changes something outside");
  if (d?.openWorld) out.push("open world: reaches systems or people outside");
  if (d !== undefined && !d.idempotent && f.grade !== "read") out.push("not idempotent: running it twice does it twice");
  if (f.mode === "llm") out.push("a model chose this call and its args");
  if (f.chain.length > 0) out.push(`delegated: asked by a subagent ${f.chain.length} call${f.chain.length === 1 ? "" : "s"} below ${f.chain[0]!.principal}`);
  if (d === undefined) out.push("the registry does not describe this tool version");
  return out;
}

/** The principals the document lets decide this approval (the requester's own confirmation aside). */
export function decidersOf(doc: PolicyDocument, a: { grade: Grade; mode: CallMode; requester: string; chain: readonly DelegationLink[] }): string[] {
  const inChain = new Set(a.chain.map((l) => l.principal));
  return Object.keys(doc.principals)
    .filter((name) => !inChain.has(name) && mayDecide(doc, name, { grade: a.grade, mode: a.mode, requester: a.requester, requesterMayConfirm: false }).ok)
    .sort();
}
