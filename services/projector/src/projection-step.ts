/**
 * What a projector copy does next with the deliveries it holds, given the shared cursor; pure.
 * Everything at or below the cursor is in every model already (the copy acks it); the run that
 * follows the cursor is applied; anything beyond a gap is held until another copy or a
 * redelivery fills the gap.
 */
export type ProjectionStep =
  /** Apply the consecutive sequences `from`..`to` (at most a batch). */
  | { readonly kind: "apply"; readonly from: number; readonly to: number }
  /** The sequence after the cursor is not here: hold the rest and wait for it. */
  | { readonly kind: "wait"; readonly missing: number; readonly lowestHeld: number }
  /** Nothing is held beyond the cursor. */
  | { readonly kind: "idle" };

export function nextProjectionStep(cursor: number, held: ReadonlySet<number>, batchSize: number): ProjectionStep {
  const from = cursor + 1;
  let to = cursor;
  while (to - cursor < batchSize && held.has(to + 1)) to++;
  if (to > cursor) return { kind: "apply", from, to };
  let lowestHeld: number | undefined;
  for (const seq of held) if (seq > cursor && (lowestHeld === undefined || seq < lowestHeld)) lowestHeld = seq;
  return lowestHeld === undefined ? { kind: "idle" } : { kind: "wait", missing: from, lowestHeld };
}

/**
 * When the stream no longer has what a copy waits for (its first sequence is past the gap,
 * removed by retention), the cursor moves to just before the lowest held sequence; else undefined.
 */
export function skipPastAgedOut(cursor: number, lowestHeld: number, firstStreamSeq: number): number | undefined {
  return firstStreamSeq > cursor + 1 && lowestHeld <= firstStreamSeq ? lowestHeld - 1 : undefined;
}
