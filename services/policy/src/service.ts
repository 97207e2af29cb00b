import { runStage, type Bus, type Logger } from "@warden/bus";
import { followPolicyDocument, startDescriptorCache } from "@warden/service-kit";
import { consumerName, stageFilterSubject, type PolicyDocument } from "@warden/contracts";
import { openAttenuation } from "./attenuation-check.js";
import { openBudgetGuard } from "./budget-guard.js";
import { openRateLimiter } from "./rate-limiter.js";
import { handleToolArgsValidatedExhausted, handleToolArgsValidated } from "./handlers/tool-args-validated.js";

export const POLICY_STAGE = "policy-check";

export interface PolicyServiceDeps {
  readonly bus: Bus;
  readonly log: Logger;
  readonly concurrency?: number;
}

export interface PolicyService {
  /** The document the stage decides with right now (hot-reloaded from KV). */
  document(): PolicyDocument;
  stop(): Promise<void>;
}

export async function startPolicyService(deps: PolicyServiceDeps): Promise<PolicyService> {
  const { bus } = deps;
  const log = deps.log.child({ stage: POLICY_STAGE });
  const documents = await followPolicyDocument(bus, log);
  const descriptors = await startDescriptorCache(bus);
  const budgets = await openBudgetGuard(bus);
  const attenuation = await openAttenuation(bus, descriptors);
  const rates = await openRateLimiter(bus);
  const stage = await runStage({
    bus,
    log,
    durable: consumerName(POLICY_STAGE),
    eventType: "ToolArgsValidated",
    filterSubject: stageFilterSubject("ToolArgsValidated"),
    ...(deps.concurrency === undefined ? {} : { concurrency: deps.concurrency }),
    handle: handleToolArgsValidated({ bus, documents, descriptors, budgets, attenuation, rates }),
    onExhausted: handleToolArgsValidatedExhausted({ bus }),
  });
  return {
    document: () => documents.current(),
    async stop() {
      await stage.stop();
      descriptors.stop();
      documents.stop();
      budgets.stop();
    },
  };
}
