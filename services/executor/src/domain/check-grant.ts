import {
  argsHash,
  fail,
  grantStatementOf,
  ok,
  type ApprovalGranted,
  type ApprovalRequested,
  type GrantStatement,
  type Outcome,
} from "@warden/contracts";

export interface GrantFacts {
  readonly grant: ApprovalGranted;
  /** The call's ApprovalRequested, which holds the args; undefined when it is not on the stream. */
  readonly request: ApprovalRequested | undefined;
  /** The approver key named by the grant's keyId (SPKI DER base64); undefined when unknown. */
  readonly publicKey: string | undefined;
  readonly now: Date;
  readonly verify: (publicKeyDerBase64: string, statement: GrantStatement, signatureBase64: string) => boolean;
}

/**
 * Re-checks a grant right before running (invariant 5): it answers this call's request, binds the
 * same args and descriptor, has not expired, and carries the approver's valid signature.
 */
export function checkGrant(f: GrantFacts): Outcome<ApprovalRequested> {
  const { grant, request } = f;
  const g = grant.data;
  if (request === undefined) return invalid("the call has no ApprovalRequested to take the args from");
  const r = request.data;
  if (r.approvalId !== g.approvalId) return invalid(`the grant is for approval ${g.approvalId}, the call's request is ${r.approvalId}`);
  if (g.argsHash !== r.argsHash) return invalid("the grant's argsHash differs from the request's");
  if (argsHash(r.args) !== r.argsHash) return invalid("the requested args do not hash to the request's argsHash");
  if (g.descriptorHash !== r.descriptorHash || g.version !== r.version) {
    return invalid("the grant's descriptor (hash or version) differs from the request's");
  }
  const expiresAt = Date.parse(g.expiresAt);
  if (!(expiresAt > f.now.getTime())) return invalid(`the grant expired at ${g.expiresAt}`);
  if (f.publicKey === undefined) return invalid(`no approver key ${JSON.stringify(g.keyId)} is published`);
  if (!f.verify(f.publicKey, grantStatementOf(grant.callId, g), g.signature)) {
    return invalid(`the grant's signature does not verify with approver key ${g.keyId}`);
  }
  return ok(request);
}

function invalid(reason: string): Outcome<never> {
  return fail("GRANT_INVALID", reason);
}
