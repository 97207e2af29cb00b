import { encodeJson, readCallStream, type Bus, type CallStreamTap, type Logger } from "@warden/bus";
import { NOTARY_CHECKPOINT_SUBJECT, STREAM_CALLS } from "@warden/contracts/subjects";
import { checkpointHash, eventLeaf, signCheckpoint } from "@warden/evidence";
import { announceService, loadSigningKey } from "@warden/service-kit";
import { CheckpointBuilder, type ChainHead } from "./domain/checkpoint-builder.js";
import { serveExportSeals } from "./export-seal.js";
import { openHeadLog, type HeadLog } from "./head-log.js";
import { lastCheckpoint } from "./last-checkpoint.js";

export interface NotaryServiceDeps {
  readonly bus: Bus;
  readonly log: Logger;
  /** PKCS#8 PEM of the Ed25519 key checkpoints are signed with; its public half is pinned by auditors. */
  readonly signingKeyPem: string;
  /** At most this many messages per checkpoint (default 1000). */
  readonly maxMessages?: number;
  /** A message waits at most this long to be sealed (default 2000 ms). */
  readonly intervalMs?: number;
  /** The head log file (head-log.ts): every checkpoint this copy writes is appended there too. */
  readonly headLogFile?: string;
  /**
   * What the projector in this process was delivered, in stream order: taken instead of reading
   * it from the stream again (`warden up`); whatever it does not hold is read as without it.
   */
  readonly tap?: CallStreamTap;
}

export interface NotaryService {
  readonly keyId: string;
  readonly publicKeyDerBase64: string;
  /** The last stream sequence a written checkpoint covers (0 before the first). */
  sealedThrough(): number;
  /** Seals what is pending, then stops. */
  stop(): Promise<void>;
}

const RETRY_MS = 1_000;

/**
 * Follows WARDEN_CALLS in order (direct gets) and writes a signed checkpoint (a Merkle root over each message's
 * subject and bytes) every `maxMessages` messages or `intervalMs`, each naming the one before.
 * A checkpoint is appended only if the last one is still the one it follows, so two copies never
 * fork the chain: the one that loses starts over from what was written.
 */
export async function startNotaryService(deps: NotaryServiceDeps): Promise<NotaryService> {
  const key = loadSigningKey(deps.signingKeyPem);
  const maxMessages = deps.maxMessages ?? 1_000;
  const intervalMs = deps.intervalMs ?? 2_000;
  const log = deps.log;
  const headLog: HeadLog | undefined = deps.headLogFile === undefined ? undefined : await openHeadLog(deps.headLogFile);
  let stopped = false;
  let sealedThrough = 0;
  // wakes the follower's wait between reads (stop, a failed write)
  let wakeUp: () => void = () => {};
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      wakeUp = () => {
        clearTimeout(t);
        resolve();
      };
    });

  const follow = async (): Promise<void> => {
    const last = await lastCheckpoint(deps.bus);
    const s = last?.checkpoint.statement;
    let head: ChainHead = s === undefined ? { index: 0, prev: null, fromSeq: undefined } : { index: s.index + 1, prev: checkpointHash(s), fromSeq: s.toSeq + 1 };
    const logged = headLog?.last()?.statement;
    if (logged !== undefined && (s === undefined || logged.index > s.index)) {
      // the server holds fewer checkpoints than this notary wrote: its store was lost or rewritten.
      // The chain goes on from the head log, never from #0 again, so the gap is a finding of every
      // later verification instead of a fresh history that verifies clean
      const calls = await deps.bus.jsm.streams.info(STREAM_CALLS);
      const kept = calls.state.last_seq >= logged.toSeq;
      head = { index: logged.index + 1, prev: checkpointHash(logged), fromSeq: kept ? logged.toSeq + 1 : undefined };
      log.error(
        { serverCheckpoint: s?.index ?? null, loggedCheckpoint: logged.index, loggedThroughSeq: logged.toSeq, callStreamLastSeq: calls.state.last_seq },
        kept
          ? `WARDEN_NOTARY lost checkpoints #${(s?.index ?? -1) + 1}–#${logged.index} that the head log holds; the chain goes on from #${logged.index}`
          : `the server lost the sealed history: WARDEN_CALLS ends at seq ${calls.state.last_seq} but checkpoint #${logged.index} sealed it through seq ${logged.toSeq}; the chain goes on from #${logged.index} over what the stream holds now`,
      );
    }
    sealedThrough = head.fromSeq === undefined ? 0 : head.fromSeq - 1;
    let lastWritten = last?.seq ?? 0;
    const builder = new CheckpointBuilder(head);
    let failure: unknown;
    let writes = Promise.resolve();
    const seal = () => {
      const statement = builder.cut(new Date(), checkpointHash);
      if (statement === undefined) return;
      const checkpoint = signCheckpoint(statement, key);
      writes = writes
        .then(async () => {
          if (failure !== undefined) return;
          const ack = await deps.bus.js.publish(NOTARY_CHECKPOINT_SUBJECT, encodeJson(checkpoint), {
            expect: { lastSubjectSequence: lastWritten },
            // a retried write of the same statement is deduplicated; another copy's never is
            msgID: checkpointHash(statement),
          });
          lastWritten = ack.seq;
          // after the ack: a line for a checkpoint another copy's won over would contradict the chain
          await headLog?.append(checkpoint);
          sealedThrough = statement.toSeq;
          log.debug({ index: statement.index, fromSeq: statement.fromSeq, toSeq: statement.toSeq, count: statement.count }, "checkpoint written");
        })
        .catch((err: unknown) => {
          failure = err;
          wakeUp();
        });
    };
    const pollMs = Math.max(10, Math.floor(intervalMs / 4));
    const timer = setInterval(() => {
      if (builder.waitedMs(Date.now()) >= intervalMs) seal();
    }, pollMs);
    // read by direct gets, what is new every pollMs: the notary needs no consumer on the call stream
    let next = head.fromSeq ?? 1;
    try {
      const add = (m: { seq: number; subject: string; data: Uint8Array }) => {
        builder.add(m.seq, eventLeaf(m.subject, m.data), Date.now());
        next = m.seq + 1;
        if (builder.size >= maxMessages) seal();
        return !stopped && failure === undefined;
      };
      while (!stopped && failure === undefined) {
        const tapped = deps.tap?.take(next) ?? [];
        if (tapped.length > 0) {
          for (const m of tapped) if (!add(m)) break;
        } else {
          let whole = true;
          const { toSeq } = await readCallStream(deps.bus, { fromSeq: next }, (m) => (whole = add(m)));
          if (whole) next = Math.max(next, toSeq + 1);
        }
        if (!stopped && failure === undefined) await pause(pollMs);
      }
    } finally {
      clearInterval(timer);
    }
    if (failure === undefined) seal();
    await writes;
    if (failure !== undefined) throw failure;
  };

  const run = (async () => {
    while (!stopped) {
      try {
        await follow();
      } catch (err) {
        if (stopped) break;
        // another copy wrote first, the server went away, or a write failed: start over from what was written
        log.warn({ err }, "notary restarts from the last written checkpoint");
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
  })();

  const seals = serveExportSeals(deps.bus, log, key);
  const discovery = announceService(deps.bus, deps.log, { name: "warden-notary", description: "signed checkpoints over WARDEN_CALLS" });
  return {
    keyId: key.keyId,
    publicKeyDerBase64: key.publicKeyDerBase64,
    sealedThrough: () => sealedThrough,
    async stop() {
      await discovery.stop();
      seals.unsubscribe();
      stopped = true;
      wakeUp();
      await run;
      await headLog?.close();
    },
  };
}
