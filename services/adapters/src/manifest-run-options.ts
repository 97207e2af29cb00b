import type { Bus, Logger } from "@warden/bus";
import type { LoadedManifest } from "./manifest/load-manifests.js";
import { fullToolName } from "./manifest/tool-descriptor.js";
import type { NetworkSandbox } from "./sandbox/network-sandbox.js";

/** What running one manifest's tools needs, whether for good (an executor) or once (discovery). */
export interface ManifestRunOptions {
  readonly bus: Bus;
  readonly log: Logger;
  readonly loaded: LoadedManifest;
  /** The executor's environment: the source of allow-listed variables and `env:` secrets. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly secretsFile?: string | undefined;
  readonly sandbox: NetworkSandbox;
}

/** The full names of the manifest's own tools, which its MCP server's tools may not take. */
export function manifestToolNames(loaded: LoadedManifest): ReadonlySet<string> {
  const { manifest } = loaded;
  return new Set(manifest.tools.map((t) => fullToolName(manifest.domain, t.name)));
}
