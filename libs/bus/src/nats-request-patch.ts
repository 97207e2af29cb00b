import { RequestOne } from "@nats-io/nats-core/internal";

/**
 * A local patch of @nats-io/nats-core 3.x (`RequestOne.resolver`): on a reply the client resolves
 * the request and then calls `cancel()`, which rejects the already-settled promise with a new
 * `RequestError("cancelled")` — an Error with a captured stack per successful request. Every
 * JetStream append and every RPC is such a request, so that dead Error was a tenth of a governed
 * call's CPU (issue 12). The success path here does what the original does minus that Error; the
 * error path is the original's. Remove when upstream stops rejecting settled requests.
 */
interface RequestOneInternals {
  timer?: { cancel(): void };
  deferred: { resolve(value: unknown): void };
  mux: { cancel(r: unknown): void };
}

type Resolver = (this: RequestOneInternals, err: Error | null, msg: unknown) => void;

const proto = RequestOne.prototype as unknown as { resolver: Resolver; wardenPatched?: true };
if (proto.wardenPatched !== true) {
  const original = proto.resolver;
  proto.resolver = function (this: RequestOneInternals, err: Error | null, msg: unknown): void {
    if (err) return original.call(this, err, msg);
    this.timer?.cancel();
    this.deferred.resolve(msg);
    this.mux.cancel(this);
  };
  proto.wardenPatched = true;
}
