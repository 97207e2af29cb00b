import { kvGetJson, type Bus } from "@warden/bus";
import { ApproverPublicKeySchema, approverKeyKey, BUCKET_POLICY, isSafeToken } from "@warden/contracts";

type Kv = Awaited<ReturnType<Bus["kvm"]["open"]>>;

/**
 * Looks up the approver's public key by id in `warden_policy`, on every grant: deleting the key
 * revokes it at once.
 */
export function approverKeyReader(bus: Bus): (keyId: string) => Promise<string | undefined> {
  let kv: Promise<Kv> | undefined;
  return async (keyId) => {
    if (!isSafeToken(keyId)) return undefined;
    kv ??= bus.kvm.open(BUCKET_POLICY);
    const bucket = await kv.catch((err: unknown) => {
      kv = undefined;
      throw err;
    });
    return (await kvGetJson(bucket, approverKeyKey(keyId), ApproverPublicKeySchema))?.value;
  };
}
