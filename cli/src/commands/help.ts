import { EXIT_OK } from "../errors.js";
import type { Command } from "../io.js";

export const USAGE = `warden: governs what AI agents do (tool calls over NATS JetStream)

usage: warden <command> [options]        (every command takes --json)

  up [--demo] [--nats-port N|0] [--insecure]     start a secured nats-server (or use NATS_URL), the services and
                                                 the demo; keys and credentials in WARDEN_HOME (./.warden); Ctrl-C stops
  tools [--mode M] [--principal P] [--flags k=v,k2=v2] [--scope S]
        [--format openai|anthropic|mcp|table] [--explain]
                                                 the tools a caller may see, and (--explain) why others are hidden
  tools enable NAME [--version V]                enable a tool (every version, or one)
  tools disable NAME [--version V]               disable a tool
  call TOOL --args JSON [--mode M] [--principal P] [--scope S] [--flags k=v]
        [--version V] [--wait] [--timeout 30s]   ask for a tool call; returns at its end or when it needs approval
  approvals --as P                               calls waiting for person P to decide
  approve ID --as P [--reason R] [--args-hash H] grant an approval
  deny ID --as P --reason R [--args-hash H]      deny an approval
  trace CALL_ID                                  a call's timeline: who did what, which rule, approver, result, child calls
  audit [--since T] [--until T] [--principal P] [--tool T] [--domain D] [--mode M] [--outcome S]
        [--jsonl] [--verify] [--policy FILE] [--projector-wait 5s]
                                                 calls requested in a time range (T: ISO time or 15m / 2h / 7d ago);
                                                 --verify checks them against the invariants, exit 1 names each violation
                                                 (and a projector that does not reach the stream's end)
  replay [--rebuild [--suffix S]] [--to-seq N] [--projector-wait 5s]
                                                 rebuild every read model from the stream; digests vs the live models;
                                                 exit 1 if they differ or the projector does not reach the stream's end
  policy set FILE                                store a policy document (JSON or YAML)
  policy show                                    the policy document in force
  register FILE [--status S] [--discover] [--dry-run]
                                                 validate a tool manifest (CLI, HTTP, MCP) and register its tools
  principal add NAME --kind agent|human|executor|service|auditor [--domains D,..] [--role R]
                                                 mint an identity's credentials (no restart needed)
  principal revoke NAME                          the server refuses NAME's credentials from now on
  principal list                                 identities in WARDEN_HOME
  provision --out DIR [--demo] [--url U] [--routes h:p,..] [--owner UID:GID]
                                                 offline: keys, server auth files, one credentials folder per identity
  topology [--demo]                              as the admin: create and check streams and buckets (WARDEN_REPLICAS)

who acts: --as NAME (credentials from WARDEN_HOME/env.json), --creds FILE or NATS_CREDS; call and tools act as
  --principal; operator commands (trace, audit, replay, policy, register, tools enable|disable) as admin

defaults: --mode human, --principal $WARDEN_PRINCIPAL or "cli"
exit codes: 0 ok, 1 refused / failed / bad usage, 2 NATS unreachable`;

export const helpCommand: Command = async (_argv, io) => {
  io.out(USAGE);
  return EXIT_OK;
};
