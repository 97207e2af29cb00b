import { z } from "zod";
import { JsonValueSchema } from "./json.js";

const COMPARISONS = ["gt", "gte", "lt", "lte", "equals"] as const;

/**
 * When an `approvalQuorum` entry applies, by one top-level argument of the call: every comparison
 * given must hold (`{ arg: amount, gt: 1000 }` is "over 1000"; `{ arg: amount, gte: 100, lt: 1000 }`
 * a band). `gt` / `gte` / `lt` / `lte` compare numbers (an argument that is missing or not a number
 * never holds them); `equals` compares canonical JSON. Kept this small on purpose: the registry has
 * already checked the args against the tool's schema, and each condition reads aloud on the card.
 */
export const QuorumConditionSchema = z
  .strictObject({
    arg: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "a top-level argument name (letters, digits, _ -)"),
    gt: z.number().optional(),
    gte: z.number().optional(),
    lt: z.number().optional(),
    lte: z.number().optional(),
    equals: JsonValueSchema.optional(),
  })
  .refine((c) => COMPARISONS.some((k) => Object.hasOwn(c, k)), "a condition needs one of gt, gte, lt, lte, equals");
export type QuorumCondition = z.infer<typeof QuorumConditionSchema>;
