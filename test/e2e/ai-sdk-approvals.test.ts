import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import {
  AbstractChat,
  convertToModelMessages,
  createUIMessageStreamResponse,
  DefaultChatTransport,
  isToolUIPart,
  stepCountIs,
  streamText,
  toUIMessageStream,
  type ChatState,
  type UIMessage,
  type UIMessageChunk,
} from "ai";
import type { Bus } from "@warden/bus";
import { type WardenEvent } from "@warden/contracts/events";
import { STREAM_CALLS } from "@warden/contracts/subjects";
import { createApproverClient, type ApproverClient } from "@warden/sdk";
import { wardenTools, type AppDecision } from "@warden/sdk/ai";
import { callEvents, eventually, eventTypes, startScriptedOpenAi, type ScriptedOpenAi } from "@warden/testing";
import { startTestWarden, type TestWarden } from "../support/warden.js";

/** The scripted model the app's route talks to; each test queues its turns in order. */
const MODEL = "chat-model";

/** How many ToolCallRequested events the stream holds: for one call, or every call support-bot asked for. */
async function requests(bus: Bus, callId = "*"): Promise<number> {
  const info = await bus.jsm.streams.info(STREAM_CALLS, { subjects_filter: `warden.call.*.${callId}.ToolCallRequested.support-bot` });
  return Object.values(info.state.subjects ?? {}).reduce((n, c) => n + c, 0);
}

/** A chat client as `useChat` is one (the same `AbstractChat`), with its state in memory. */
class MemoryChat extends AbstractChat<UIMessage> {
  constructor(api: string, person: string) {
    const messages: UIMessage[] = [];
    const state: ChatState<UIMessage> = {
      status: "ready",
      error: undefined,
      messages,
      pushMessage: (m) => void messages.push(m),
      popMessage: () => void messages.pop(),
      replaceMessage: (i, m) => void (messages[i] = m),
      snapshot: (thing) => structuredClone(thing),
    };
    // the app knows who is signed in; a header stands in for its session cookie here
    super({ state, transport: new DefaultChatTransport({ api, headers: { "x-user": person } }) });
  }

  /** The tool part of the last assistant message that called `tool`. */
  toolPart(tool: string) {
    const last = this.messages.filter((m) => m.role === "assistant").at(-1);
    const part = last?.parts.find((p) => isToolUIPart(p) && p.type === `tool-${tool}`);
    if (part === undefined || !isToolUIPart(part)) throw new Error(`no ${tool} part in the last assistant message`);
    return part;
  }
}

describe("Vercel AI SDK approvals: a Warden call that waits for a person is the AI SDK's approval request, and the app's answer resumes that same call", { timeout: 90_000 }, () => {
  let w: TestWarden;
  let scripted: ScriptedOpenAi;
  let app: Server;
  let api: string;
  /** What the app's route recorded: the UI stream chunks it sent, and the decisions `decide` made. */
  const sent: UIMessageChunk[] = [];
  const decisions: AppDecision[] = [];

  beforeAll(async () => {
    w = await startTestWarden({ demo: true });
    scripted = await startScriptedOpenAi();
    // what the docs' route takes from its app: the agent's client, the model, who is signed in and their approver client
    const agent = await w.agent("support-bot", { mode: "llm" });
    const model = createOpenAICompatible({ name: "scripted", baseURL: scripted.baseURL, apiKey: "test" }).chatModel(MODEL);
    const signedInPerson = async (req: Request) => req.headers.get("x-user") ?? "";
    // the app server holds the Warden credentials of the people who sign in to it (trust model: docs/integrations.md)
    const approvers = new Map<string, ApproverClient>();
    for (const person of ["alice", "bob"]) approvers.set(person, createApproverClient({ bus: await w.humanBus(person), approver: person }));
    const approverOf = (person: string): ApproverClient => {
      const approver = approvers.get(person);
      if (approver === undefined) throw new Error(`${person} may not sign in to this app`);
      return approver;
    };
    const audit = (decision: AppDecision) => void decisions.push(decision);

    // the route of docs/integrations.md, word for word (a test below holds the two equal)
    async function POST(req: Request): Promise<Response> {
      const { id, messages: uiMessages } = (await req.json()) as { id: string; messages: UIMessage[] };
      const warden = await wardenTools(agent, { chatId: id, scope: "ticket_page" }); // agent: createAgentClient({ bus, principal: "support-bot" })
      if (!warden.ok) return new Response(warden.error.message, { status: 503 });
      const messages = await convertToModelMessages(uiMessages);
      // the signed-in person's answers become their Warden decisions on the same calls
      for (const d of await warden.value.decide(messages, { approver: approverOf(await signedInPerson(req)) })) audit(d);
      const result = streamText({ model, messages, tools: warden.value.tools, toolApproval: warden.value.toolApproval, stopWhen: stepCountIs(5) });
      return createUIMessageStreamResponse({ stream: toUIMessageStream({ stream: result.stream }) });
    }

    app = createServer((req, res) => {
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        const response = await POST(new Request(`http://app${req.url}`, { method: "POST", headers: { "x-user": String(req.headers["x-user"] ?? "") }, body: Buffer.concat(chunks) }));
        res.writeHead(response.status, Object.fromEntries(response.headers));
        let text = "";
        if (response.body !== null) {
          for await (const c of response.body) {
            text += Buffer.from(c).toString("utf8");
            res.write(c);
          }
        }
        res.end();
        // the UI message stream as server-sent events: keep its chunks
        for (const line of text.split("\n")) if (line.startsWith("data: {")) sent.push(JSON.parse(line.slice(6)) as UIMessageChunk);
      })().catch((err: unknown) => res.writeHead(500).end(String(err)));
    });
    await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
    api = `http://127.0.0.1:${(app.address() as AddressInfo).port}/api/chat`;
  }, 60_000);

  afterAll(async () => {
    app?.closeAllConnections();
    await new Promise<void>((resolve) => (app === undefined ? resolve() : app.close(() => resolve())));
    await scripted?.stop();
    await w?.stop();
  });

  /** The approval alice finds in her Warden inbox for a ticket. */
  async function inWardenInbox(ticketId: string) {
    const alice = await w.approver("alice");
    return eventually(async () => {
      const r = await alice.pending();
      const found = r.ok ? r.value.find((a) => a.tool === "ticket.fill" && JSON.stringify(a.args).includes(ticketId)) : undefined;
      expect(found).toBeDefined();
      return found!;
    });
  }

  /** Sends the first message and checks the write came back as the AI SDK's approval request for the Warden approval. */
  async function askedForApproval(chat: MemoryChat, ticketId: string) {
    const before = await requests(w.bus);
    await chat.sendMessage({ text: `Please file ${ticketId} as high priority.` });
    const part = chat.toolPart("ticket__fill");
    expect(part.state).toBe("approval-requested");
    const warden = await inWardenInbox(ticketId);
    // the UI stream carried the approval request part, with the card's summary and Warden's approval id
    const request = sent.find((c) => c.type === "tool-approval-request" && c.toolCallId === part.toolCallId);
    expect(request).toMatchObject({ type: "tool-approval-request", approvalId: part.approval!.id });
    expect(part.approval?.requestReason).toContain(`Warden approval ${warden.approvalId}`);
    expect(part.approval?.requestReason).toContain(warden.title);
    expect(part.approval?.requestReason).toContain(ticketId);
    expect(part.approval?.requestReason).toMatch(/may decide: .*alice/);
    expect(await requests(w.bus, warden.callId)).toBe(1);
    // every later check: still this one request, the resumed turn asked for no other call
    const oneRequest = async () => {
      expect(await requests(w.bus, warden.callId)).toBe(1);
      expect(await requests(w.bus)).toBe(before + 1);
    };
    await oneRequest();
    return { part, warden, oneRequest };
  }

  /**
   * One chat of `person` in which the model asks to fill `ticketId` (tool call `toolCallId`), the
   * request comes back for approval, the person answers in the page and the chat sends again.
   */
  async function answeredInApp(person: string, ticketId: string, toolCallId: string, answer: { approved: boolean; reason?: string }, finalText: string) {
    scripted.script(MODEL, [
      { toolCalls: [{ id: toolCallId, name: "ticket__fill", arguments: { ticketId, fields: { priority: "high" } } }] },
      { content: finalText },
    ]);
    const chat = new MemoryChat(api, person);
    const asked = await askedForApproval(chat, ticketId);
    expect(scripted.remaining(MODEL)).toBe(1);
    await chat.addToolApprovalResponse({ id: asked.part.approval!.id, ...answer });
    await chat.sendMessage();
    return { chat, ...asked };
  }

  /** The tool messages of the model's last request. */
  function toolMessagesSeen(): string {
    const last = scripted.requestsFor(MODEL).at(-1)!;
    return JSON.stringify(last.body.messages.filter((m) => m.role === "tool"));
  }

  it("runs the route docs/integrations.md shows, word for word", () => {
    const doc = readFileSync(new URL("../../docs/integrations.md", import.meta.url), "utf8");
    const route = /export (async function POST[\s\S]*?\n\})\n```/.exec(doc)?.[1];
    expect(route).toBeDefined();
    const indented = route!.split("\n").map((line, i) => (i === 0 ? line : `    ${line}`)).join("\n");
    expect(readFileSync(new URL(import.meta.url), "utf8")).toContain(`    ${indented}`);
  });

  it("approved in the app by alice (who may decide): alice's grant resumes the same Warden call, the tool runs once and the model gets its result", async () => {
    const { chat, warden, oneRequest } = await answeredInApp("alice", "T-51", "va_write", { approved: true }, "Filled in T-51.");

    expect(decisions.find((d) => d.toolCallId === "va_write")).toMatchObject({ status: "recorded", approved: true, callId: warden.callId, wardenApprovalId: warden.approvalId });
    const done = chat.toolPart("ticket__fill");
    expect(done.state).toBe("output-available");
    expect(String(done.output)).toContain("T-51");
    expect(toolMessagesSeen()).toContain("T-51");
    expect(chat.messages.at(-1)?.parts.some((p) => p.type === "text" && p.text === "Filled in T-51.")).toBe(true);

    const events: WardenEvent[] = await callEvents(w.bus, warden.callId);
    expect(eventTypes(events).filter((t) => t === "ToolCallStarted")).toHaveLength(1);
    expect(events.find((e) => e.type === "ApprovalGranted")?.data).toMatchObject({ approver: "alice" });
    expect(events.find((e) => e.type === "ToolCallFinished")?.data).toMatchObject({ ok: true });
    await oneRequest();
  });

  it("denied in the app by alice: Warden records her denial with her reason on the same call, nothing runs, and the model is told the reason", async () => {
    const { chat, warden, oneRequest } = await answeredInApp("alice", "T-52", "vd_write", { approved: false, reason: "the customer withdrew the request" }, "Understood, T-52 stays as it is.");

    expect(decisions.find((d) => d.toolCallId === "vd_write")).toMatchObject({ status: "recorded", approved: false, callId: warden.callId });
    expect(chat.toolPart("ticket__fill").state).toBe("output-denied");
    expect(toolMessagesSeen()).toContain("the customer withdrew the request");

    const events = await eventually(async () => {
      const e = await callEvents(w.bus, warden.callId);
      expect(eventTypes(e)).toContain("ApprovalDenied");
      return e;
    });
    expect(events.find((e) => e.type === "ApprovalDenied")?.data).toMatchObject({ approver: "alice", reason: "the customer withdrew the request" });
    expect(eventTypes(events)).not.toContain("ToolCallStarted");
    await oneRequest();
  });

  it("approved in the app by bob, whom the policy does not let decide: Warden refuses it, the model is told it was not approved, and the call still waits for alice", async () => {
    const { chat, warden, oneRequest } = await answeredInApp("bob", "T-53", "vb_write", { approved: true }, "I could not file T-53 without an approval.");

    expect(decisions.find((d) => d.toolCallId === "vb_write")).toMatchObject({ status: "refused", refusal: "NOT_AUTHORISED", callId: warden.callId });
    expect(chat.toolPart("ticket__fill").state).toBe("output-denied");
    expect(toolMessagesSeen()).toContain("NOT_AUTHORISED");

    const events = await callEvents(w.bus, warden.callId);
    expect(eventTypes(events)).not.toContain("ApprovalGranted");
    expect(eventTypes(events)).not.toContain("ToolCallStarted");
    expect((await inWardenInbox("T-53")).approvalId).toBe(warden.approvalId);
    await oneRequest();
  });
});
