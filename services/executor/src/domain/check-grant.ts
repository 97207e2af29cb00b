import {
  type ApprovalDenied,
  type ApprovalExpired,
  type ApprovalGranted,
  type ApprovalRequested,
  type SessionGrantRevoked,
} from "@warden/contracts/events";
import { fail, ok, type Outcome } from "@warden/contracts/errors";
import { grantStatementOf, type GrantStatement } from "@warden/contracts/approval";
import { argsHash } from "@warden/contracts/json";

export interface GrantFacts {
  readonly grant: ApprovalGranted;
  /** The call's ApprovalRequested, which holds the args; undefined when it is not on the stream. */
  readonly request: ApprovalRequested | undefined;
  /** The pinned approver key named by the grant's keyId (SPKI DER base64); undefined when not pinned. */
  readonly publicKey: string | undefined;
  /** How many approver keys this executor has pinned (0: it can verify no grant at all). */
  readonly pinnedKeys: number;
  readonly now: Date;
  readonly verify: (publicKeyDerBase64: string, statement: GrantStatement, signatureBase64: string) => boolean;
}

/**
 * Re-checks a grant right before running (invariant 5): it answers this call's request, binds the
 * same args and descriptor, has not expired, and carries a valid signature by a pinned approver key.
 */
export function checkGrant(f: GrantFacts): Outcome<ApprovalRequested> {
  const { grant, request } = f;
  const g = grant.data;
  if (request === undefined) return invalid("the call has no ApprovalRequested to take the args from");
  const r = request.data;
  if (r.approvalId !== g.approvalId) return invalid(`the grant is for approval ${g.approvalId}, the call's request is ${r.approvalId}`);
  if (argsHash(r.args) !== r.argsHash) return invalid("the requested args do not hash to the request's argsHash");
  if (g.edit === undefined) {
    if (g.argsHash !== r.argsHash) return invalid("the grant's argsHash differs from the request's");
  } else {
    // an edited grant names the args it replaced and binds (signs) the hash of the ones that run
    if (g.edit.originalArgsHash !== r.argsHash) return invalid("the edited grant replaces other args than the request's");
    if (argsHash(g.edit.args) !== g.argsHash) return invalid("the edited args do not hash to the grant's argsHash");
  }
  if (g.descriptorHash !== r.descriptorHash || g.version !== r.version) {
    return invalid("the grant's descriptor (hash or version) differs from the request's");
  }
  const expiresAt = Date.parse(g.expiresAt);
  if (!(expiresAt > f.now.getTime())) return invalid(`the grant expired at ${g.expiresAt}`);
  if (f.pinnedKeys === 0) {
    return invalid("no approver key is pinned in this executor (approverKeys, WARDEN_APPROVER_PUBLIC_KEYS), so it runs no granted call");
  }
  if (f.publicKey === undefined) return invalid(`no approver key ${JSON.stringify(g.keyId)} is pinned in this executor`);
  if (!f.verify(f.publicKey, grantStatementOf(grant.callId, g), g.signature)) {
    return invalid(`the grant's signature does not verify with approver key ${g.keyId}`);
  }
  return ok(request);
}

/**
 * A grant is not used once the call's approval has a denial or an expiry on the stream, whatever
 * was signed: those events are terminal, and only the approver role writes them.
 */
export function checkApprovalOpen(f: {
  readonly denied: ApprovalDenied | undefined;
  readonly expired: ApprovalExpired | undefined;
  /** For a grant a session grant gave: that session grant's revoke. */
  readonly sessionRevoked?: SessionGrantRevoked | undefined;
}): Outcome<void> {
  if (f.sessionRevoked !== undefined) {
    const r = f.sessionRevoked;
    return fail("GRANT_REVOKED", `the session grant that granted this call was revoked by ${r.data.by} at ${r.ts} before it ran${r.data.reason === "" ? "" : `: ${r.data.reason}`}`);
  }
  if (f.denied !== undefined) {
    return fail("APPROVAL_DENIED", `the call's approval was already denied by ${f.denied.data.approver} at ${f.denied.ts}; its grant is not used`);
  }
  if (f.expired !== undefined) {
    return fail("APPROVAL_EXPIRED", `the call's approval expired at ${f.expired.data.expiresAt} (recorded at ${f.expired.ts}); its grant is not used`);
  }
  return ok(undefined);
}

function invalid(reason: string): Outcome<never> {
  return fail("GRANT_INVALID", reason);
}
