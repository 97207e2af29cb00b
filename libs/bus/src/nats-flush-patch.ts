import { ProtocolHandler } from "@nats-io/nats-core/internal";

/**
 * A local patch of @nats-io/nats-core 3.x (`ProtocolHandler.sendCommand`): the client writes its
 * outbound buffer to the socket in a microtask after the first command, so the acks, appends and
 * pull requests one socket read leads to leave in several writes (each a syscall here and a read
 * in nats-server; `writeBuffer` was 8–19 % of a stage's CPU at peak, issue 12). Flushing in
 * `setImmediate` instead sends everything the current event-loop turn produced in one write; the
 * check phase runs right after the socket reads of the same turn, so no reply waits on a timer.
 * The size-triggered inline flush and `flush()` (PING) are the original's; `close()` flushes first. Remove when upstream
 * coalesces writes per turn.
 */
interface ProtocolInternals {
  outbound: { length(): number; size(): number; fill(buf: Uint8Array, ...payloads: Uint8Array[]): void };
  pendingLimit: number;
  flushPending(): void;
}

type Close = (this: ProtocolInternals, err?: Error) => Promise<void>;
type SendCommand = (this: ProtocolInternals, cmd: string | Uint8Array, ...payloads: Uint8Array[]) => void;

const encoder = new TextEncoder();
const proto = ProtocolHandler.prototype as unknown as { sendCommand: SendCommand; close: Close; wardenFlushPatched?: true };
if (proto.wardenFlushPatched !== true) {
  proto.sendCommand = function (this: ProtocolInternals, cmd: string | Uint8Array, ...payloads: Uint8Array[]): void {
    const len = this.outbound.length();
    this.outbound.fill(typeof cmd === "string" ? encoder.encode(cmd) : cmd, ...payloads);
    if (len === 0) {
      setImmediate(() => this.flushPending());
    } else if (this.outbound.size() >= this.pendingLimit) {
      this.flushPending();
    }
  };
  // a close right after a publish still sends it, as the original's microtask flush did
  const close = proto.close;
  proto.close = function (this: ProtocolInternals, err?: Error): Promise<void> {
    this.flushPending();
    return close.call(this, err);
  };
  proto.wardenFlushPatched = true;
}
