import { runServiceProcess } from "@warden/service-kit";
import { loadConfig } from "./config.js";
import { startProjectorService } from "./service.js";

await runServiceProcess({
  name: "projector",
  loadConfig,
  start: ({ bus, log, config }) =>
    startProjectorService({
      bus,
      log,
      batchSize: config.WARDEN_PROJECTOR_BATCH,
      ackWaitMs: config.WARDEN_PROJECTOR_ACK_WAIT_MS,
      leaseTtlMs: config.WARDEN_PROJECTOR_LEASE_MS,
    }),
  describe: (_, config) => ({ batch: config.WARDEN_PROJECTOR_BATCH }),
});
