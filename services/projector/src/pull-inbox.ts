/**
 * What the pull delivered and the loop has not taken yet: the iterator fills it while a run is
 * applied, and the loop takes whatever queued up; `wait` parks the loop until more arrives or
 * something else wakes it (the cursor moved, the projector stops).
 */
export class PullInbox<M> {
  /** Settles when the pull's iterator ends; rejects if it failed. */
  readonly received: Promise<void>;
  private readonly queue: M[] = [];
  private wakeUp: (() => void) | undefined;
  private finished = false;

  constructor(messages: AsyncIterable<M>) {
    this.received = this.receive(messages);
  }

  /** The pull delivers nothing more. */
  get ended(): boolean {
    return this.finished;
  }

  take(): M[] {
    return this.queue.splice(0);
  }

  wake(): void {
    this.wakeUp?.();
  }

  /** Resolves on the next delivery or wake-up, or after `ms` when given. */
  wait(ms?: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(resolve, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
    });
  }

  private async receive(messages: AsyncIterable<M>): Promise<void> {
    try {
      for await (const m of messages) {
        this.queue.push(m);
        this.wake();
      }
    } finally {
      this.finished = true;
      this.wake();
    }
  }
}
