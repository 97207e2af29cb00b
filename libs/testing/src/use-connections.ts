import { beforeAll } from "vitest";
import type { Bus } from "@warden/bus";
import type { IdentitySpecInput } from "@warden/contracts/permissions";
import type { TestNats } from "./nats.js";

/**
 * One connection per named identity, made before the `describe` block's tests on the server of a
 * fixture declared above it (such as {@link useTestNats}), which closes them when it stops. Read the
 * connections inside tests and hooks, not while the block is declared.
 *
 * @example
 * ```ts
 * const server = useTestNats();
 * const as = useConnections(server, { alice: { kind: "human", name: "alice" }, agent: { kind: "agent", name: "agent-1" } });
 * it("lists her own", async () => expect(await listOwn(as.alice)).toEqual([]));
 * ```
 */
export function useConnections<Name extends string>(server: { readonly nats: TestNats }, identities: Readonly<Record<Name, IdentitySpecInput>>): Readonly<Record<Name, Bus>> {
  const connected = new Map<Name, Bus>();
  beforeAll(async () => {
    for (const [name, identity] of Object.entries(identities) as [Name, IdentitySpecInput][]) connected.set(name, await server.nats.connectAs(identity));
  });
  const connections = {} as Record<Name, Bus>;
  for (const name of Object.keys(identities) as Name[]) {
    Object.defineProperty(connections, name, {
      enumerable: true,
      get: () => {
        const bus = connected.get(name);
        if (bus === undefined) throw new Error(`useConnections: read ${name} inside a test or hook, after beforeAll`);
        return bus;
      },
    });
  }
  return connections;
}
