import { generateKeyPairSync, sign } from "node:crypto";
import type { Bus } from "@warden/bus";
import { eventHash } from "@warden/contracts/events";
import { approverKeyId } from "@warden/contracts/approval";
import { sealMessages, verifyEvidence, type StoredMessage } from "@warden/evidence";
import { readStream } from "@warden/projector";

const PER_CHECKPOINT = 1_000;

/**
 * What tamper evidence costs, over real messages the run left on the stream: the chain hash a
 * writer computes per event (of the event it answers), the notary's sealing (a leaf per message,
 * a Merkle root and one signature per checkpoint), and an auditor's full verification.
 */
export async function evidenceBench(bus: Bus, o: { messages: number; eventsPerCall: number; approverKeys: readonly string[] }): Promise<[string, string][]> {
  const messages: StoredMessage[] = [];
  await readStream(bus, { toSeq: o.messages }, (r) => void messages.push({ seq: r.seq, subject: r.subject, data: r.data }));
  const events = messages.map((m) => JSON.parse(new TextDecoder().decode(m.data)) as unknown);

  let t0 = performance.now();
  for (const e of events) eventHash(e);
  const hashUs = ((performance.now() - t0) * 1000) / events.length;

  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const der = publicKey.export({ type: "spki", format: "der" });
  const signer = { keyId: approverKeyId(der), sign: (p: Uint8Array) => sign(null, p, privateKey).toString("base64") };
  t0 = performance.now();
  const checkpoints = sealMessages(messages, PER_CHECKPOINT, signer, new Date());
  const sealUs = ((performance.now() - t0) * 1000) / messages.length;

  t0 = performance.now();
  const report = verifyEvidence({ messages, checkpoints, notaryKeys: [der.toString("base64")], approverKeys: o.approverKeys, complete: false });
  const verifyRate = messages.length / ((performance.now() - t0) / 1000);

  const n = o.eventsPerCall;
  return [
    [`chain hash per event (canonical JSON + sha256, µs), over ${events.length} stored events`, hashUs.toFixed(2)],
    [`  per call (${n - 1} hashes: each event after the request hashes its cause), µs`, (hashUs * (n - 1)).toFixed(1)],
    [`notary sealing per message (leaf + Merkle root + a signature per ${PER_CHECKPOINT}), µs`, sealUs.toFixed(2)],
    [`  per call (${n} messages), µs`, (sealUs * n).toFixed(1)],
    ["audit --verify evidence check, messages/s (signatures, alignment, chains, roles)", `${verifyRate.toFixed(0)} (${report.findings.length} findings)`],
  ];
}

