import { ToolError } from "@warden/executor";
import { wardenError } from "@warden/contracts/errors";
import type { BudgetMeter } from "./domain/budget-meter.js";
import type { ModelClient, ModelReply, ModelRequest } from "./model.js";

/**
 * One model turn, bounded by what is left of the time budget: "time" when the budget ran out
 * first. An endpoint failure is thrown as UNAVAILABLE with the turn it happened on.
 */
export async function askModel(model: ModelClient, request: ModelRequest, meter: BudgetMeter, outer: AbortSignal, turn: number): Promise<ModelReply | "time"> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), meter.remainingMs(Date.now()));
  const onOuter = () => controller.abort();
  outer.addEventListener("abort", onOuter, { once: true });
  try {
    return await model(request, controller.signal);
  } catch (err) {
    if (controller.signal.aborted) return "time";
    throw new ToolError(wardenError("UNAVAILABLE", `the model endpoint failed on turn ${turn}: ${(err as Error).message}`));
  } finally {
    clearTimeout(timer);
    outer.removeEventListener("abort", onOuter);
  }
}
