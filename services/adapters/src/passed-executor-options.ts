/** Options of the executor kit the adapters pass on to each domain's executor as they were given. */
export interface PassedExecutorOptions {
  /** Approver public keys (base64 SPKI) pinned at provisioning: the only keys a grant is checked against. */
  readonly approverKeys?: readonly string[];
  readonly concurrency?: number;
  /** Passed to the executor kit (tests shorten it). */
  readonly ackWaitMs?: number;
}

/** The options of `o` that are set, and no key for the others (the executor takes its defaults). */
export function passedExecutorOptions(o: PassedExecutorOptions): PassedExecutorOptions {
  return {
    ...(o.concurrency === undefined ? {} : { concurrency: o.concurrency }),
    ...(o.ackWaitMs === undefined ? {} : { ackWaitMs: o.ackWaitMs }),
    ...(o.approverKeys === undefined ? {} : { approverKeys: o.approverKeys }),
  };
}
