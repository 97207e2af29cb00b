import { z } from "zod";
import {
  descriptorHash,
  lintDescriptor,
  parseToolName,
  ToolDescriptorSchema,
  type Grade,
  type JsonObject,
  type ToolDescriptor,
} from "@warden/contracts";
import type { ToolContext } from "./tool-context.js";

interface ToolDefinitionBase<A, O> {
  readonly name: string;
  readonly version: string;
  readonly title: string;
  /** Written as *when to use it*: a model reads this to choose the tool. */
  readonly description: string;
  readonly grade: Grade;
  readonly outputSchema?: JsonObject;
  readonly destructive?: boolean;
  readonly idempotent?: boolean;
  readonly openWorld?: boolean;
  readonly featureFlag?: string;
  readonly scopes?: readonly string[];
  readonly requiredScopes?: readonly string[];
  readonly timeoutMs?: number;
  readonly maxOutputBytes?: number;
  readonly handler: (args: A, ctx: ToolContext) => O | Promise<O>;
}

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
  | { readonly ok: true; readonly run: (ctx: ToolContext) => Promise<unknown> }
  | { readonly ok: false; readonly message: string };

/** The type-erased form an executor runs: any tool, whatever its args type. */
export interface ExecutableTool {
  readonly descriptor: ToolDescriptor;
  readonly descriptorHash: string;
  readonly domain: string;
  /** Parses the args (zod tools) and binds them to the handler. */
  prepare(args: unknown): PreparedCall;
}

export interface Tool<A = unknown, O = unknown> extends ExecutableTool {
  readonly handler: (args: A, ctx: ToolContext) => O | Promise<O>;
}

/** A bug in a team's tool definition: thrown at define time, never at run time. */
export class ToolDefinitionError extends Error {
  override readonly name = "ToolDefinitionError";
}

export function defineTool<S extends z.ZodType, O>(def: ZodToolDefinition<S, O>): Tool<z.output<S>, O>;
export function defineTool<O>(def: JsonSchemaToolDefinition<O>): Tool<unknown, O>;
export function defineTool<S extends z.ZodType, O>(
  def: ZodToolDefinition<S, O> | JsonSchemaToolDefinition<O>,
): Tool<z.output<S>, O> | Tool<unknown, O> {
  const { handler, input, inputSchema, ...rest } = def;
  if ((input === undefined) === (inputSchema === undefined)) {
    throw new ToolDefinitionError(`tool ${def.name}: give exactly one of input (zod) or inputSchema (JSON Schema)`);
  }
  const schema = input === undefined ? inputSchema : zodToInputSchema(def.name, input);
  const descriptor = parseDescriptor({ ...rest, inputSchema: schema });
  const domain = parseToolName(descriptor.name)?.domain;
  if (domain === undefined) throw new ToolDefinitionError(`tool ${def.name}: a name is <domain>.<capability>`);
  const prepare = (args: unknown): PreparedCall => {
    if (input === undefined) return { ok: true, run: async (ctx) => (handler as (a: unknown, c: ToolContext) => unknown)(args, ctx) };
    const parsed = input.safeParse(args);
    if (!parsed.success) return { ok: false, message: z.prettifyError(parsed.error) };
    return { ok: true, run: async (ctx) => (handler as (a: unknown, c: ToolContext) => unknown)(parsed.data, ctx) };
  };
  return { descriptor, descriptorHash: descriptorHash(descriptor), domain, prepare, handler } as Tool<z.output<S>, O>;
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
