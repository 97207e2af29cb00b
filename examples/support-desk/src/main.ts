import { ConfigError, connectBus, createLogger, ensureTopology, loadBusConfig } from "@warden/bus";
import { startSupportDesk } from "./start-support-desk.js";

async function main(): Promise<void> {
  const config = loadBusConfig(process.env);
  const log = createLogger("support-desk", config.LOG_LEVEL);
  const bus = await connectBus(config, "warden-support-desk");
  await ensureTopology(bus);
  const desk = await startSupportDesk({ bus, log });
  const shutdown = (signal: string) => {
    log.info({ signal }, "support desk stopping");
    void desk
      .stop()
      .then(() => bus.close())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          log.error({ err }, "support desk stop failed");
          process.exit(1);
        },
      );
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
}

main().catch((err: unknown) => {
  process.stderr.write(`warden-support-desk: ${err instanceof ConfigError ? err.message : String((err as Error).stack ?? err)}\n`);
  process.exit(1);
});
