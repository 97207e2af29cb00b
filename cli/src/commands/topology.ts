import { ensureTopology, isNoAnswer, isStreamCreateUnsettled, TopologyError } from "@warden/bus";
import { supportDeskPolicy } from "@warden/example-support-desk";
import { BUCKET_POLICY } from "@warden/contracts/subjects";
import { POLICY_DOCUMENT_KEY } from "@warden/contracts/policy";
import { putPolicyDocument } from "@warden/policy";
import type { TOPOLOGY_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { CliError, EXIT_OK } from "../errors.js";
import type { Command } from "../io.js";
import { emit } from "../output.js";

const PATIENCE_MS = 60_000;

/**
 * `warden topology [--demo]`: as the admin, creates the streams, buckets and object store
 * (WARDEN_REPLICAS, retention from the environment) and checks WARDEN_CALLS; `--demo` stores the
 * support-desk policy when no policy document is stored. Waits up to a minute for a cluster that
 * is still forming, and creates again a stream whose create a node failed while it formed.
 */
export const topologyCommand: Command<typeof TOPOLOGY_OPTIONS> = async ({ values }, io) => {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    try {
      const policy = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, async (bus) => {
        await ensureTopology(bus);
        if (!values.demo) return undefined;
        const stored = await (await bus.kvm.open(BUCKET_POLICY)).get(POLICY_DOCUMENT_KEY);
        if (stored !== null && stored.operation === "PUT") return "(kept the stored document)";
        const put = await putPolicyDocument(bus, supportDeskPolicy);
        if (!put.ok) throw new CliError(put.error.code, put.error.message);
        return put.value.document.version;
      });
      emit(io, values.json ?? false, { ok: true, ...(policy === undefined ? {} : { policyVersion: policy }) }, () =>
        `topology in place${policy === undefined ? "" : `; policy ${policy}`}`,
      );
      return EXIT_OK;
    } catch (err) {
      if (err instanceof TopologyError) throw new CliError("INVALID_REQUEST", err.message);
      const retryable = (err instanceof CliError && err.code === "UNAVAILABLE") || isNoAnswer(err) || isStreamCreateUnsettled(err);
      if (!retryable || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 2_000));
    }
  }
};
