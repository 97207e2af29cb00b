/** What the projector has counted for a run: calls admitted, and the last stream sequence applied. */
export interface ProjectedRun {
  readonly admitted: number;
  readonly seq: number;
}

/**
 * Calls a run has used: those the projection counted, plus this process's own admitting
 * decisions it has not applied yet (their stream sequence is past the run model's). The
 * projector applies events in stream order, so a decision at or below the model's sequence is
 * already in its count.
 */
export function callsUsed(projected: ProjectedRun | undefined, ownDecisions: ReadonlyMap<string, number>): number {
  return (projected?.admitted ?? 0) + unprojected(projected, ownDecisions).size;
}

/** This process's decisions the projection does not hold yet (callId -> stream sequence). */
export function unprojected(projected: ProjectedRun | undefined, ownDecisions: ReadonlyMap<string, number>): Map<string, number> {
  const seq = projected?.seq ?? 0;
  return new Map([...ownDecisions].filter(([, s]) => s > seq));
}
