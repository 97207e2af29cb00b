import { describe, expect, it } from "vitest";
import { createRegistryClient } from "@warden/sdk";
import { kvPutJson, requestRpc } from "@warden/bus";
import { BUCKET_POLICY, BUCKET_TOOLS, registryRegisterSubject, registryStatusSubject } from "@warden/contracts/subjects";
import { POLICY_DOCUMENT_KEY, PolicyDocumentSchema, type PolicyDocumentInput } from "@warden/contracts/policy";
import { eventually, useConnections } from "@warden/testing";
import { ArgsValidators } from "../domain/args-validator.js";
import { parseDescriptors } from "../domain/parse-descriptors.js";
import { descriptor, SIDE_EFFECTS } from "../../test-support/fixtures.js";
import { useRegistryHarness, uniqueDomain } from "../../test-support/registry-harness.js";
import { registerDescriptors } from "../store/tool-store.js";

describe("registry request-reply", () => {
  const h = useRegistryHarness();
  /** Callers as the server knows them: an agent and a person (clients account). */
  const callers = useConnections(h, { agent: { kind: "agent", name: "agent-1" }, alice: { kind: "human", name: "alice" } });

  /** Stores a policy document and waits until the registry's views are compiled against it. */
  async function usePolicy(doc: PolicyDocumentInput): Promise<void> {
    const parsed = PolicyDocumentSchema.parse(doc);
    await kvPutJson(await h.bus.kvm.open(BUCKET_POLICY), POLICY_DOCUMENT_KEY, parsed);
    await eventually(async () => {
      const r = await createRegistryClient(callers.agent).view({ principal: "agent-1", mode: "llm" });
      expect(r.ok && r.value.view.policyVersion).toBe(parsed.version);
    });
  }

  it("registers a new version, and the same content again is a no-op that keeps its status", async () => {
    const name = `${uniqueDomain()}.search`;
    const first = await createRegistryClient(h.bus).register([descriptor({ name })]);
    expect(first).toMatchObject({ ok: true, value: { registered: [{ name, version: "1.0.0", status: "enabled", created: true }] } });
    expect((await createRegistryClient(h.bus).setStatus({ name, status: "disabled" })).ok).toBe(true);
    const again = await createRegistryClient(h.bus).register([descriptor({ name })]);
    expect(again).toMatchObject({ ok: true, value: { registered: [{ name, status: "disabled", created: false }] } });
    if (first.ok && again.ok) expect(again.value.registered[0]?.descriptorHash).toBe(first.value.registered[0]?.descriptorHash);
  });

  it("registers new versions with the requested initial status", async () => {
    const name = `${uniqueDomain()}.search`;
    const r = await createRegistryClient(h.bus).register([descriptor({ name, version: "2.0.0" })], "discovered");
    expect(r).toMatchObject({ ok: true, value: { registered: [{ status: "discovered", created: true }] } });
  });

  it("refuses new content for a registered version and keeps the stored one", async () => {
    const name = `${uniqueDomain()}.search`;
    const first = await createRegistryClient(h.bus).register([descriptor({ name })]);
    const changed = await createRegistryClient(h.bus).register([descriptor({ name, title: "A better title" })]);
    expect(changed).toMatchObject({ ok: false, error: { code: "REGISTRATION_CONFLICT", retryable: false } });
    if (!changed.ok) expect(changed.error.message).toContain("new version");
    const listed = await createRegistryClient(h.bus).list();
    const stored = listed.ok ? listed.value.filter((r) => r.descriptor.name === name) : [];
    expect(stored.map((r) => [r.descriptor.title, r.descriptorHash])).toEqual([
      ["Search the knowledge base", first.ok ? first.value.registered[0]?.descriptorHash : "?"],
    ]);
  });

  it("refuses a whole batch when one descriptor breaks a lint rule, naming the rule", async () => {
    const domain = uniqueDomain();
    const r = await createRegistryClient(h.bus).register([descriptor({ name: `${domain}.ok` }), descriptor({ name: `${domain}.wipe`, destructive: true })]);
    expect(r).toMatchObject({ ok: false, error: { code: "DESCRIPTOR_INVALID" } });
    if (!r.ok) expect(r.error.message).toContain("read-not-destructive");
    const listed = await createRegistryClient(h.bus).list();
    expect(listed.ok && listed.value.some((t) => t.descriptor.name.startsWith(`${domain}.`))).toBe(false);
  });

  it("refuses a malformed descriptor naming the field path", async () => {
    const r = await createRegistryClient(h.bus).register([descriptor({ name: `${uniqueDomain()}.search`, version: "1.0" })]);
    expect(r).toMatchObject({ ok: false, error: { code: "DESCRIPTOR_INVALID" } });
    if (!r.ok) expect(r.error.message).toMatch(/descriptors\[0\].*version: a version is MAJOR\.MINOR\.PATCH/);
  });

  it("refuses a request body that is not a register request", async () => {
    const r = await createRegistryClient(h.bus).register([]);
    expect(r).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST" } });
  });

  it("lets exactly one of two racing registrations of one version win", async () => {
    const kvA = await (await h.nats.bus("racer-a")).kvm.open(BUCKET_TOOLS);
    const kvB = await (await h.nats.bus("racer-b")).kvm.open(BUCKET_TOOLS);
    const check = (s: Parameters<ArgsValidators["checkSchema"]>[0]) => new ArgsValidators().checkSchema(s);
    const name = `${uniqueDomain()}.search`;
    const a = parseDescriptors([descriptor({ name })], check);
    const b = parseDescriptors([descriptor({ name, title: "The other title" })], check);
    if (!a.ok || !b.ok) throw new Error("fixtures must parse");
    const results = await Promise.all([registerDescriptors(kvA, a.value, "enabled"), registerDescriptors(kvB, b.value, "enabled")]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.error.code === "REGISTRATION_CONFLICT")).toHaveLength(1);

    const same = `${uniqueDomain()}.search`;
    const c = parseDescriptors([descriptor({ name: same })], check);
    if (!c.ok) throw new Error("fixture must parse");
    const twice = await Promise.all([registerDescriptors(kvA, c.value, "enabled"), registerDescriptors(kvB, c.value, "enabled")]);
    const created = twice.flatMap((r) => (r.ok ? r.value.filter((t) => t.created) : []));
    expect(twice.every((r) => r.ok)).toBe(true);
    expect(created).toHaveLength(1);
  });

  it("disables and enables one version, or every version of a name", async () => {
    const name = `${uniqueDomain()}.search`;
    await createRegistryClient(h.bus).register([descriptor({ name }), descriptor({ name, version: "1.1.0" })]);
    const one = await createRegistryClient(h.bus).setStatus({ name, version: "1.0.0", status: "disabled" });
    expect(one.ok && one.value.map((r) => [r.descriptor.version, r.status])).toEqual([["1.0.0", "disabled"]]);
    const all = await createRegistryClient(h.bus).setStatus({ name, status: "disabled" });
    expect(all.ok && all.value.map((r) => [r.descriptor.version, r.status])).toEqual([
      ["1.0.0", "disabled"],
      ["1.1.0", "disabled"],
    ]);
    const back = await createRegistryClient(h.bus).setStatus({ name, version: "1.1.0", status: "enabled" });
    expect(back.ok && back.value[0]?.status).toBe("enabled");
    const listed = await createRegistryClient(h.bus).list();
    expect(listed.ok && listed.value.filter((r) => r.descriptor.name === name).map((r) => r.status)).toEqual(["disabled", "enabled"]);
  });

  it("answers NOT_FOUND for an unknown tool and INVALID_REQUEST for a bad name", async () => {
    expect(await createRegistryClient(h.bus).setStatus({ name: `${uniqueDomain()}.nothing`, status: "disabled" })).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
    expect(await createRegistryClient(h.bus).setStatus({ name: "kb.search", version: "9.9.9", status: "disabled" })).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
    expect(await createRegistryClient(h.bus).setStatus({ name: "kb.>", status: "disabled" })).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST" } });
  });

  it("compiles a ToolView per caller, in every format, and explains what it hides", async () => {
    const domain = uniqueDomain();
    // only a principal the document names as a person may see the tools of mode human
    await usePolicy({ version: `people-${domain}`, principals: { alice: { kind: "human" } } });
    await createRegistryClient(h.bus).register([
      descriptor({ name: `${domain}.search` }),
      descriptor({ name: `${domain}.submit`, grade: "write", description: SIDE_EFFECTS }),
      descriptor({ name: `${domain}.message`, grade: "send", description: SIDE_EFFECTS }),
    ]);
    const mine = (names: string[]) => names.filter((n) => n.startsWith(domain)).sort();

    const openai = await createRegistryClient(callers.agent).view({ principal: "agent-1", mode: "llm" });
    expect(openai.ok).toBe(true);
    if (!openai.ok) return;
    expect(openai.value.view.hidden).toEqual([]);
    const fns = openai.value.formatted as { function: { name: string } }[];
    expect(mine(fns.map((f) => f.function.name))).toEqual([`${domain}__search`]);

    const explained = await createRegistryClient(callers.agent).view({ principal: "agent-1", mode: "llm", format: "table", explain: true });
    if (!explained.ok) throw new Error(explained.error.message);
    const hidden = explained.value.view.hidden.filter((t) => t.name.startsWith(domain));
    expect(hidden.map((t) => [t.name, t.reason]).sort()).toEqual([
      [`${domain}.message`, "send_never_listed_for_llm"],
      [`${domain}.submit`, "write_not_opted_in_for_llm"],
    ]);

    const human = await createRegistryClient(callers.alice).view({ principal: "alice", mode: "human", format: "mcp" });
    const mcp = human.ok ? (human.value.formatted as { tools: { name: string }[] }).tools.map((t) => t.name) : [];
    expect(mine(mcp)).toEqual([`${domain}__message`, `${domain}__search`, `${domain}__submit`]);

    // an agent claiming mode human sees nothing: the gate hides every tool, with its reason
    const claimed = await createRegistryClient(callers.agent).view({ principal: "agent-1", mode: "human", explain: true });
    if (!claimed.ok) throw new Error(claimed.error.message);
    expect(mine(claimed.value.view.tools.map((t) => t.name))).toEqual([]);
    expect(claimed.value.view.hidden.filter((t) => t.name.startsWith(domain)).map((t) => t.ruleIds)).toEqual([
      ["gate.human_mode_needs_person"],
      ["gate.human_mode_needs_person"],
      ["gate.human_mode_needs_person"],
    ]);

    expect(await createRegistryClient(h.bus).view({ principal: "a.b", mode: "llm" })).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST" } });
  });

  it("compiles the view of the principal the subject names, whatever the request body says", async () => {
    const domain = uniqueDomain();
    await usePolicy({ version: `people2-${domain}`, principals: { alice: { kind: "human" } } });
    await createRegistryClient(h.bus).register([descriptor({ name: `${domain}.message`, grade: "send", description: SIDE_EFFECTS })]);
    // agent-1 may only ask on warden.registry.view.agent-1; a body naming alice changes nothing
    const r = await requestRpc(callers.agent, "warden.registry.view.agent-1", { principal: "alice", mode: "human", explain: true });
    if (!r.ok) throw new Error(r.error.message);
    const view = (r.value as { view: { query: { principal: string }; tools: { name: string }[] } }).view;
    expect(view.query.principal).toBe("agent-1");
    expect(view.tools.map((t) => t.name)).not.toContain(`${domain}.message`);
  });

  it("refuses, as FORBIDDEN, another domain's tools on a domain's register and status subjects, and stores none", async () => {
    const own = uniqueDomain("own");
    const other = uniqueDomain("other");
    // an executor of `own` is permitted to publish only warden.registry.register.<own>
    const executor = await h.nats.connectAs({ kind: "executor", name: `ex-${own}`, domains: [own] });
    expect(await createRegistryClient(executor).register([descriptor({ name: `${own}.search` })])).toMatchObject({ ok: true });
    await createRegistryClient(h.bus).register([descriptor({ name: `${other}.search` })]);

    const foreign = await requestRpc(executor, registryRegisterSubject(own), { descriptors: [descriptor({ name: `${other}.lookup` })] });
    expect(foreign).toMatchObject({ ok: false, error: { code: "FORBIDDEN", retryable: false } });
    if (!foreign.ok) expect(foreign.error.message).toContain(`${other}.lookup`);
    const mixed = await requestRpc(executor, registryRegisterSubject(own), {
      descriptors: [descriptor({ name: `${own}.fetch` }), descriptor({ name: `${other}.fetch` })],
    });
    expect(mixed).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });

    const status = await requestRpc(executor, registryStatusSubject(own), { name: `${other}.search`, status: "disabled" });
    expect(status).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });

    const listed = await createRegistryClient(h.bus).list();
    if (!listed.ok) throw new Error(listed.error.message);
    const stored = listed.value.filter((r) => [own, other].some((d) => r.descriptor.name.startsWith(`${d}.`)));
    expect(stored.map((r) => [r.descriptor.name, r.status]).sort()).toEqual([
      [`${other}.search`, "enabled"],
      [`${own}.search`, "enabled"],
    ]);
  });

  it("follows the policy document in KV: a write opted in for models appears in their view", async () => {
    const domain = uniqueDomain();
    await createRegistryClient(h.bus).register([descriptor({ name: `${domain}.submit`, grade: "write", description: SIDE_EFFECTS })]);
    const policy = await h.bus.kvm.open(BUCKET_POLICY);
    await kvPutJson(policy, POLICY_DOCUMENT_KEY, PolicyDocumentSchema.parse({ version: `v-${domain}`, llm: { showWrite: [`${domain}.*`] } }));
    await eventually(async () => {
      const r = await createRegistryClient(callers.agent).view({ principal: "agent-1", mode: "llm", format: "anthropic" });
      if (!r.ok) throw new Error(r.error.message);
      expect(r.value.view.policyVersion).toBe(`v-${domain}`);
      expect((r.value.formatted as { name: string }[]).map((t) => t.name)).toContain(`${domain}__submit`);
      expect(r.value.view.tools.find((t) => t.name === `${domain}.submit`)?.decision).toBe("require_approval");
    });
  });
});
