import { z } from "zod";
import { parseToolName } from "@warden/contracts/subjects";
import { type WardenError } from "@warden/contracts/errors";
import {
  descriptorHash,
  lintDescriptor,
  ToolDescriptorSchema,
  type ActionType,
  type Compensation,
  type Grade,
  type PermissionLevel,
  type ToolDescriptor,
} from "@warden/contracts/descriptor";
import { type JsonObject, type JsonValue } from "@warden/contracts/json";
import type { ToolContext } from "./tool-context.js";

interface ToolDefinitionBase<A, O> {
  /** `<domain>.<capability>`, e.g. `billing.invoice_lookup`; the domain is the executor's. */
  readonly name: string;
  /** A semver version; immutable once registered: change anything, bump the version. */
  readonly version: string;
  /** A short human title (1-120 characters). */
  readonly title: string;
  /** Written as *when to use it*: a model reads this to choose the tool (10-2000 characters; 20+ for write and send). */
  readonly description: string;
  /**
   * The side effect: `read` (nothing changes), `write` (local, can be undone, seen later) or
   * `send` (cannot be undone or is seen at once). Decides who may call it and who must approve.
   */
  readonly grade: Grade;
  /** A JSON Schema of the output, shown to callers and checked: an output that does not match fails the call OUTPUT_INVALID. */
  readonly outputSchema?: JsonObject;
  /** Destroys or overwrites data; a `read` cannot be destructive. @default false */
  readonly destructive?: boolean;
  /**
   * Running it twice with the same args does no more than once: after a crash mid-run the
   * executor re-runs it instead of recording `ToolCallOutcomeUnknown`, and a TIMEOUT stays
   * retryable.
   * @default false
   */
  readonly idempotent?: boolean;
  /** Touches the world outside (other systems, people). @default false */
  readonly openWorld?: boolean;
  /** What it does (`search`, `patch`, `delete`, `external_send`, …); must agree with the grade (a `delete` is never `read`). */
  readonly actionType?: ActionType;
  /** Its permission level L0–L5, to raise what grade, flags and action type derive (never to lower it). */
  readonly level?: PermissionLevel;
  /**
   * Personal data (e-mail addresses, phone numbers, payment cards, IBANs) in its results: `redact`
   * masks it before anything records it (`[email]`, …), `keep` leaves it.
   * @default "redact" for an L3 tool (an external read), "keep" otherwise
   */
  readonly personalData?: "redact" | "keep";
  /** The labels its results carry besides the derived ones, or `trusted` for an open-world read whose content its owner vouches for (docs/policy.md, Data labels). */
  readonly dataLabels?: { readonly trusted?: true; readonly labels?: readonly string[] };
  /**
   * The line a person deciding a call of it reads first, with the call's arguments by name:
   * `"Send to {customerId}: {text}"` (each placeholder a top-level argument the input declares).
   */
  readonly approvalSummary?: string;
  /** A flag the policy document must grant the principal (and the call not turn off), else the tool is off. */
  readonly featureFlag?: string;
  /** The contexts (pages, screens) where the tool applies. @default [] (everywhere) */
  readonly scopes?: readonly string[];
  /** Permission scopes the calling principal must hold (from the policy document). @default [] */
  readonly requiredScopes?: readonly string[];
  /** The handler's deadline; past it the signal aborts and the call fails with `TIMEOUT`. @default 10_000 */
  readonly timeoutMs?: number;
  /** A larger output fails the call with `OUTPUT_TOO_LARGE`. @default 4_194_304 (4 MiB) */
  readonly maxOutputBytes?: number;
  /** Cost units one call uses, against the policy's cost budgets (docs/policy.md, Budgets). @default 1 */
  readonly cost?: number;
  /** The names of the secrets it reads with `ctx.secrets.get` (names only; shown in its descriptor). */
  readonly secrets?: readonly string[];
  /**
   * On whose behalf it acts: `caller` when it uses a secret bound to the principal (the executor
   * refuses to start a tool that lists one in `secrets` without saying so), else `service`.
   */
  readonly actsAs?: "caller" | "service";
  /**
   * Does the work. Return a JSON-serialisable value (the call's output); throw a
   * {@link ToolError} to fail with a chosen code, anything else fails it with `HANDLER_ERROR`.
   * Stop when `ctx.signal` aborts.
   */
  readonly handler: (args: A, ctx: ToolContext) => O | Promise<O>;
  /**
   * A dry run for the person approving: what the call would do, read from the current state (a
   * diff, the rows it would change), never a change. The executor runs it when a call of this tool
   * waits for approval and the approver puts its answer on the card; it is the tool's claim, not
   * an authority, and a failure only leaves the card without it. Same args, secrets and redaction
   * as the handler; bounded by `timeoutMs` and PREVIEW_TIMEOUT_MS.
   */
  readonly preview?: (args: A, ctx: PreviewContext) => unknown;
  /**
   * How a successful call is undone (`warden undo`, `agent.undo`): the tool that undoes it and
   * its args, where `"$args.<path>"` and `"$output.<path>"` stand for members of this call's args
   * and output. The executor builds it when the call succeeds and records it on ToolCallFinished;
   * the undo is a governed call of its own (policy, approval), once per call.
   * @example { tool: "ticket.withdraw", args: { ticketId: "$output.ticketId" } }
   */
  readonly compensation?: Compensation;
  /**
   * A check of each result before it is recorded, after the `outputSchema` check: return nothing
   * to accept it, or the reason it is wrong, and the call fails `VERIFY_FAILED` (the tool did run).
   * It gets the output as it will be recorded (the handler's value as JSON keeps it: what callers
   * receive), the args and the run's context; it may read the world (did the write land?), never
   * change it. Bounded by `timeoutMs`; a throw or a timeout fails the result too. The executor
   * records what it found as `ToolResultValidated`.
   */
  readonly verify?: (output: O, args: A, ctx: ToolContext) => VerifyVerdict | Promise<VerifyVerdict>;
  /**
   * A last check right before the handler, after the executor claimed the call: return nothing to
   * go ahead, or the reason not to, and the call fails `PRECALL_REFUSED` with that reason (the
   * handler never runs). Use it for what only the domain knows at run time (the account is frozen,
   * the record is locked). A throw or a timeout refuses too. Bounded by `timeoutMs`; the handler
   * gets what is left of its time.
   */
  readonly preCall?: (args: A, ctx: ToolContext) => PreCallVerdict | Promise<PreCallVerdict>;
  /**
   * Follow-up work once the call's outcome is recorded (invalidate a cache, notify someone): it gets
   * the result as recorded (`ok` with the output, or the error), the args and the run's context.
   * It cannot change the outcome: a throw or a timeout is only logged. Runs after every run of the
   * handler, failed ones too; not when preCall refused. Bounded by `timeoutMs`.
   */
  readonly postCall?: (result: RecordedResult, args: A, ctx: ToolContext) => unknown;
}

/** What `preCall` answers: nothing (or `true`) to go ahead, the reason to refuse the call. */
export type PreCallVerdict = string | true | undefined | void;

/** A call's result as ToolCallFinished records it, as `postCall` sees it. */
export type RecordedResult =
  | { readonly ok: true; readonly output: JsonValue; /** The output is a preview; the whole is in the artifact. */ readonly truncated: boolean }
  | { readonly ok: false; readonly error: WardenError };

/** What `verify` answers: nothing (or `true`) to accept the result, the reason it is wrong to refuse it. */
export type VerifyVerdict = string | true | undefined | void;

/** What a dry run gets besides its args: no call has started, so no callId of a run, only the asking call's. */
export type PreviewContext = Pick<ToolContext, "signal" | "callId" | "principal" | "onBehalfOf" | "log" | "secrets">;

/** A tool whose args are a zod schema: the descriptor gets its JSON Schema, the handler its parsed value. */
export interface ZodToolDefinition<S extends z.ZodType, O> extends ToolDefinitionBase<z.output<S>, O> {
  readonly input: S;
  readonly inputSchema?: never;
}

/** A tool whose args are a JSON Schema (`type: object`); the handler gets the args as validated by the registry. */
export interface JsonSchemaToolDefinition<O> extends ToolDefinitionBase<unknown, O> {
  readonly inputSchema: JsonObject;
  readonly input?: never;
}

export type PreparedCall =
  | {
      readonly ok: true;
      readonly run: (ctx: ToolContext) => Promise<unknown>;
      /** The tool's `verify`, bound to the same args; undefined when it has none. */
      readonly verify?: (output: JsonValue, ctx: ToolContext) => Promise<unknown>;
      /** The tool's `preCall`, bound to the same args; undefined when it has none. */
      readonly preCall?: (ctx: ToolContext) => Promise<unknown>;
      /** The tool's `postCall`, bound to the same args; undefined when it has none. */
      readonly postCall?: (result: RecordedResult, ctx: ToolContext) => Promise<unknown>;
    }
  | { readonly ok: false; readonly message: string };

/** The type-erased form an executor runs: any tool, whatever its args type. */
export interface ExecutableTool {
  readonly descriptor: ToolDescriptor;
  readonly descriptorHash: string;
  readonly domain: string;
  /** Parses the args (zod tools) and binds them to the handler. */
  prepare(args: unknown): PreparedCall;
  /** Parses the args and binds them to the dry run; undefined when the tool has none. */
  preparePreview?(args: unknown): { readonly ok: true; readonly run: (ctx: PreviewContext) => Promise<unknown> } | { readonly ok: false; readonly message: string };
}

export interface Tool<A = unknown, O = unknown> extends ExecutableTool {
  readonly handler: (args: A, ctx: ToolContext) => O | Promise<O>;
}

/**
 * A bug in a team's tool definition, thrown by {@link defineTool} at define time (never at run
 * time): both or neither of `input` and `inputSchema`, an invalid descriptor, or flags that
 * contradict the grade (a destructive `read`).
 */
export class ToolDefinitionError extends Error {
  override readonly name = "ToolDefinitionError";
}

/**
 * Defines a domain tool: its descriptor (what the registry, the policy and models see) and its
 * handler (what the executor runs once a call is authorised). Give the args as a zod schema
 * (`input`: the handler gets the parsed value, the descriptor its JSON Schema) or as a JSON
 * Schema (`inputSchema`). Pass the result to {@link startExecutor}'s `tools`, or to `runTool`
 * of `@warden/executor/testing` in a unit test.
 *
 * @throws {@link ToolDefinitionError} when the definition is invalid (a bug, found at start).
 * @example
 * ```ts
 * const lookup = defineTool({
 *   name: "billing.invoice_lookup",
 *   version: "1.0.0",
 *   title: "Look up an invoice",
 *   description: "Use when the customer quotes an invoice number and asks about its amount or status.",
 *   grade: "read",
 *   idempotent: true,
 *   input: z.object({ invoiceId: z.string() }),
 *   timeoutMs: 5_000,
 *   handler: async ({ invoiceId }, { signal }) => {
 *     const invoice = await fetchInvoice(invoiceId, signal);
 *     if (invoice === undefined) throw new ToolError(wardenError("NOT_FOUND", `no invoice ${invoiceId}`));
 *     return { status: invoice.status, amount: invoice.amount };
 *   },
 * });
 * ```
 */
export function defineTool<S extends z.ZodType, O>(def: ZodToolDefinition<S, O>): Tool<z.output<S>, O>;
export function defineTool<O>(def: JsonSchemaToolDefinition<O>): Tool<unknown, O>;
export function defineTool<S extends z.ZodType, O>(
  def: ZodToolDefinition<S, O> | JsonSchemaToolDefinition<O>,
): Tool<z.output<S>, O> | Tool<unknown, O> {
  const { handler, input, inputSchema, preview, verify, preCall, postCall, ...rest } = def;
  if ((input === undefined) === (inputSchema === undefined)) {
    throw new ToolDefinitionError(`tool ${def.name}: give exactly one of input (zod) or inputSchema (JSON Schema)`);
  }
  if (Object.hasOwn(def, "network")) {
    // the adapters say where a process runs; a handler runs in this process, whatever it claims
    throw new ToolDefinitionError(`tool ${def.name}: network is set by the adapters for the commands they sandbox; a defineTool handler runs in the executor's process`);
  }
  const schema = input === undefined ? inputSchema : zodToInputSchema(def.name, input);
  const descriptor = parseDescriptor({ ...rest, inputSchema: schema, ...(preview === undefined ? {} : { preview: true }), ...(verify === undefined ? {} : { verify: true }) });
  const domain = parseToolName(descriptor.name)?.domain;
  if (domain === undefined) throw new ToolDefinitionError(`tool ${def.name}: a name is <domain>.<capability>`);
  const bind = (args: unknown): PreparedCall => ({
    ok: true,
    run: async (ctx) => (handler as (a: unknown, c: ToolContext) => unknown)(args, ctx),
    ...(verify === undefined ? {} : { verify: async (output: JsonValue, ctx: ToolContext) => (verify as (o: unknown, a: unknown, c: ToolContext) => unknown)(output, args, ctx) }),
    ...(preCall === undefined ? {} : { preCall: async (ctx: ToolContext) => (preCall as (a: unknown, c: ToolContext) => unknown)(args, ctx) }),
    ...(postCall === undefined ? {} : { postCall: async (result: RecordedResult, ctx: ToolContext) => postCall(result, args as never, ctx) }),
  });
  const prepare = (args: unknown): PreparedCall => {
    if (input === undefined) return bind(args);
    const parsed = input.safeParse(args);
    if (!parsed.success) return { ok: false, message: z.prettifyError(parsed.error) };
    return bind(parsed.data);
  };
  const preparePreview =
    preview === undefined
      ? undefined
      : (args: unknown) => {
          const call = preview as (a: unknown, c: PreviewContext) => unknown;
          if (input === undefined) return { ok: true as const, run: async (ctx: PreviewContext) => call(args, ctx) };
          const parsed = input.safeParse(args);
          if (!parsed.success) return { ok: false as const, message: z.prettifyError(parsed.error) };
          return { ok: true as const, run: async (ctx: PreviewContext) => call(parsed.data, ctx) };
        };
  return {
    descriptor,
    descriptorHash: descriptorHash(descriptor),
    domain,
    prepare,
    handler,
    ...(preparePreview === undefined ? {} : { preparePreview }),
  } as Tool<z.output<S>, O>;
}

function zodToInputSchema(name: string, input: z.ZodType): JsonObject {
  let json: Record<string, unknown>;
  try {
    // draft-07 is what every JSON Schema consumer (ajv defaults, model tool formats) reads
    json = z.toJSONSchema(input, { target: "draft-7", io: "input" }) as Record<string, unknown>;
  } catch (err) {
    throw new ToolDefinitionError(`tool ${name}: its input schema has no JSON Schema form: ${(err as Error).message}`, { cause: err });
  }
  delete json["$schema"];
  return json as JsonObject;
}

function parseDescriptor(raw: unknown): ToolDescriptor {
  const parsed = ToolDescriptorSchema.safeParse(raw);
  const name = (raw as { name?: unknown }).name;
  if (!parsed.success) {
    throw new ToolDefinitionError(`tool ${String(name)}: invalid descriptor: ${z.prettifyError(parsed.error)}`);
  }
  const issues = lintDescriptor(parsed.data);
  if (issues.length > 0) {
    throw new ToolDefinitionError(`tool ${String(name)}: ${issues.map((i) => `${i.rule}: ${i.message}`).join("; ")}`);
  }
  return parsed.data;
}
