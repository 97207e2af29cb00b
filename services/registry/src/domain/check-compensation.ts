import { undoCallIdOf, type ToolArgsValidated, type ToolCallRequested, type WardenEvent } from "@warden/contracts/events";
import { fail, ok, type Outcome } from "@warden/contracts/errors";
import { sameArgs } from "@warden/contracts/descriptor";

/** What the registry found of the call a request says it undoes. */
export interface CompensatedCall {
  readonly validated: ToolArgsValidated | undefined;
  /** The event in its outcome slot (finished, outcome unknown, rejected), if any. */
  readonly outcome: WardenEvent | undefined;
}

/**
 * Whether `req` is the undo its original call's tool declares: under the one undo call id (which
 * carries its requester's tag: `undoCallIdOf`), by the call's own requester, of a call that succeeded, calling the tool and args its executor recorded
 * as its undo when it finished (built by the tool's declared compensation). Anything else is
 * NOT_UNDOABLE: an undo is the tool author's, never the caller's, and one per call.
 */
export function checkCompensation(req: ToolCallRequested, tool: string, original: CompensatedCall): Outcome<void> {
  const target = req.data.compensates;
  if (target === undefined) return ok(undefined);
  const of = `${target.domain}/${target.callId}`;
  const undoId = undoCallIdOf(req.principal, target.domain, target.callId);
  if (req.callId !== undoId) {
    return fail("NOT_UNDOABLE", `the undo of call ${of} has call id ${undoId}, not ${req.callId}: a call is undone once`);
  }
  const { validated, outcome } = original;
  // the undo acts on what the call returned, which only its requester has seen; another's call
  // reads exactly like no call at all
  if (validated === undefined || validated.principal !== req.principal) return fail("NOT_UNDOABLE", `there is no call ${of} of ${req.principal} to undo`);
  if (outcome === undefined) return fail("NOT_UNDOABLE", `call ${of} has not finished: only a call that succeeded can be undone (cancel one that has not started)`);
  if (outcome.type !== "ToolCallFinished" || !outcome.data.ok) {
    return fail("NOT_UNDOABLE", `call ${of} did not succeed (${outcome.type === "ToolCallFinished" ? outcome.data.error?.code : outcome.type}): there is nothing known to undo`);
  }
  // the executor built the undo from the whole output when the call finished (only it writes there)
  const planned = outcome.data.undo;
  if (planned === undefined) return fail("NOT_UNDOABLE", `${validated.tool}@${validated.data.version} declares no compensation: call ${of} cannot be undone by Warden`);
  if (planned.tool !== tool) return fail("NOT_UNDOABLE", `call ${of} is undone by ${planned.tool}, not ${tool}`);
  if (!sameArgs(planned.args, req.data.args)) return fail("NOT_UNDOABLE", `the undo of call ${of} must call ${tool} with ${JSON.stringify(planned.args)}, the args its compensation built`);
  return ok(undefined);
}
