import { checkpointStatement, type CheckpointStatement } from "@warden/evidence";

/** Where the next checkpoint continues: after the last one written, or at the stream's start. */
export interface ChainHead {
  readonly index: number;
  readonly prev: string | null;
  /** The first sequence the next checkpoint covers; undefined before the first (it starts where the stream does). */
  readonly fromSeq: number | undefined;
}

/**
 * The messages read since the last checkpoint, ready to be cut into the next one. Pure: the
 * service feeds it messages in stream order and asks for a cut when enough waited long enough.
 */
export class CheckpointBuilder {
  private leaves: Buffer[] = [];
  private missing: [number, number][] = [];
  private fromSeq: number | undefined;
  private expected: number | undefined;
  private lastSeq = 0;
  private firstAtMs: number | undefined;

  constructor(private head: ChainHead) {
    this.fromSeq = head.fromSeq;
    this.expected = head.fromSeq;
  }

  get size(): number {
    return this.leaves.length;
  }

  /** How long the oldest unsealed message has waited. */
  waitedMs(nowMs: number): number {
    return this.firstAtMs === undefined ? 0 : nowMs - this.firstAtMs;
  }

  add(seq: number, leaf: Buffer, nowMs: number): void {
    if (this.expected !== undefined && seq < this.expected) return; // already sealed (a redelivery)
    if (this.fromSeq === undefined) this.fromSeq = seq;
    if (this.expected !== undefined && seq > this.expected) this.missing.push([this.expected, seq - 1]);
    this.leaves.push(leaf);
    this.lastSeq = seq;
    this.expected = seq + 1;
    this.firstAtMs ??= nowMs;
  }

  /** The next checkpoint's statement over everything added, and a fresh range after it; undefined when nothing waits. */
  cut(now: Date, hashOf: (s: CheckpointStatement) => string): CheckpointStatement | undefined {
    if (this.leaves.length === 0 || this.fromSeq === undefined) return undefined;
    const statement = checkpointStatement({
      index: this.head.index,
      fromSeq: this.fromSeq,
      toSeq: this.lastSeq,
      missing: this.missing,
      leaves: this.leaves,
      prev: this.head.prev,
      sealedAt: now,
    });
    this.head = { index: this.head.index + 1, prev: hashOf(statement), fromSeq: this.lastSeq + 1 };
    this.fromSeq = this.lastSeq + 1;
    this.leaves = [];
    this.missing = [];
    this.firstAtMs = undefined;
    return statement;
  }
}
