import { z } from "zod";
import { TokenSchema, ToolNameSchema } from "./tokens.js";
import type { ToolDescriptor } from "./descriptor.js";

/** A label a tool's results carry and a run accumulates (docs/policy.md, Data labels). */
export const DataLabelSchema = z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, "a data label: lowercase letters, digits and -, at most 32");
export type DataLabel = z.infer<typeof DataLabelSchema>;

/** The labels Warden derives from descriptors; a descriptor may add its own. */
export const DATA_LABELS = {
  /** Content from outside (an open-world read) that nobody vouched for. */
  untrusted: "untrusted",
  /** Data of the caller or of people (declared, or read with the caller's own credentials). */
  private: "private",
  /** Produced by a tool that uses secrets. */
  secretDerived: "secret-derived",
} as const;

/** Most labels one result carries, and most a run keeps. */
export const MAX_RESULT_LABELS = 8;
export const MAX_RUN_LABELS = 32;

/** A descriptor's own say about its results' labels (the optional `dataLabels` field). */
export const DescriptorDataLabelsSchema = z.strictObject({
  /** An open-world read whose content its owner vouches for (a pinned internal wiki): not `untrusted`. */
  trusted: z.literal(true).optional(),
  /** Labels its results carry besides the derived ones (`private`, or the document's own names). */
  labels: z.array(DataLabelSchema).min(1).max(MAX_RESULT_LABELS - 3).optional(),
});
export type DescriptorDataLabels = z.infer<typeof DescriptorDataLabelsSchema>;

/**
 * The labels a tool's successful result carries: `untrusted` for an open-world read (`openWorld`, grade read) unless
 * declared trusted, `secret-derived` for a tool that uses secrets, `private` for a read with the
 * caller's credentials (`actsAs: caller`), and whatever the descriptor declares. Sorted, distinct.
 */
export function resultLabelsOf(d: Pick<ToolDescriptor, "openWorld" | "grade" | "secrets" | "actsAs" | "dataLabels">): DataLabel[] {
  const out = new Set<string>(d.dataLabels?.labels ?? []);
  if (d.openWorld && d.grade === "read" && d.dataLabels?.trusted !== true) out.add(DATA_LABELS.untrusted);
  if ((d.secrets?.length ?? 0) > 0) out.add(DATA_LABELS.secretDerived);
  if (d.actsAs === "caller" && d.grade === "read") out.add(DATA_LABELS.private);
  return [...out].sort();
}

/** One label of a run as a decision saw it: the earlier result that brought it (ToolPolicyChecked `runLabels`). */
export const RunLabelSourceSchema = z.object({
  label: DataLabelSchema,
  /** The earliest result of the run (or its delegation tree) that carried it. */
  callId: TokenSchema,
  tool: ToolNameSchema,
});
export type RunLabelSource = z.infer<typeof RunLabelSourceSchema>;
