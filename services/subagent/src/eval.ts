import { ConfigError, connectBus } from "@warden/bus";
import { createAgentClient } from "@warden/sdk";
import { endpointOf, loadEvalConfig } from "./config.js";
import { SUPPORT_DESK_GOLDEN } from "./eval/golden.js";
import { runEval } from "./eval/run-eval.js";
import { reportText } from "./eval/score.js";
import { endpointConfigured, openAiModelClient } from "./model.js";

/** `npm run eval`: golden prompts against a real model endpoint, with the tools a running Warden shows. */
async function main(): Promise<number> {
  const config = loadEvalConfig(process.env);
  const endpoint = endpointOf(config);
  if (!endpointConfigured(endpoint)) {
    process.stdout.write(
      "npm run eval needs a model endpoint: set OPENAI_BASE_URL (any OpenAI-compatible endpoint) and OPENAI_API_KEY, " +
        "and run Warden with the demo (npm start). Nothing was evaluated.\n",
    );
    return 0;
  }
  const model = config.WARDEN_EVAL_MODEL ?? config.WARDEN_SUBAGENT_MODEL;
  const bus = await connectBus(config, "warden-eval").catch((err: unknown) => {
    process.stderr.write(`eval: cannot reach NATS at ${config.NATS_URL} (${(err as Error).message}); start Warden with the demo (npm start) or set NATS_URL\n`);
    return undefined;
  });
  if (bus === undefined) return 1;
  try {
    const client = createAgentClient({ bus, principal: config.WARDEN_EVAL_PRINCIPAL, mode: "llm" });
    const view = await client.toolView({ scope: SUPPORT_DESK_GOLDEN.scope });
    if (!view.ok) {
      process.stderr.write(`eval: no tool view from ${config.NATS_URL} (${view.error.message}); start Warden with the demo (npm start) or set NATS_URL\n`);
      return 1;
    }
    if (view.value.view.tools.length === 0) {
      process.stderr.write(`eval: ${config.WARDEN_EVAL_PRINCIPAL} sees no tools at ${config.NATS_URL}; start Warden with the demo (npm start)\n`);
      return 1;
    }
    const result = await runEval(openAiModelClient(endpoint), model, view.value.view.tools, SUPPORT_DESK_GOLDEN);
    process.stdout.write(`${reportText(result, model)}\n`);
    return 0;
  } finally {
    await bus.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`eval: ${err instanceof ConfigError ? err.message : String((err as Error).stack ?? err)}\n`);
    process.exit(1);
  },
);
