import type { Bus } from "@warden/bus";
import type { IdentitySpecInput } from "@warden/contracts/permissions";
import type { TestNats } from "./nats.js";
import { useStarted } from "./use-started.js";

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
  return useStarted(
    "useConnections",
    async () => {
      const connections = {} as Record<Name, Bus>;
      for (const [name, identity] of Object.entries(identities) as [Name, IdentitySpecInput][]) connections[name] = await server.nats.connectAs(identity);
      return connections;
    },
    // the server's fixture closes them when it stops
    async () => undefined,
  );
}
