import { EXIT_OK } from "../errors.js";
import type { Command } from "../io.js";

export const USAGE = `warden: governs what AI agents do (tool calls over NATS JetStream)

usage: warden <command> [options]        (every command takes --json; NATS_URL picks the server)

  up [--demo]                                    start NATS (if needed), the services and the demo; Ctrl-C stops
  tools [--mode M] [--principal P] [--flags k=v,k2=v2] [--scope S]
        [--format openai|anthropic|mcp|table] [--explain]
                                                 the tools a caller may see, and (--explain) why others are hidden
  tools enable NAME [--version V]                enable a tool (every version, or one)
  tools disable NAME [--version V]               disable a tool
  call TOOL --args JSON [--mode M] [--principal P] [--scope S] [--flags k=v]
        [--version V] [--wait] [--timeout 30s]   ask for a tool call; returns at its end or when it needs approval
  approvals                                      calls waiting for a person
  approve ID --as P [--reason R] [--args-hash H] grant an approval
  deny ID --as P --reason R [--args-hash H]      deny an approval
  trace CALL_ID                                  a call's timeline: who did what, which rule, approver, result, child calls
  audit [--since T] [--until T] [--principal P] [--tool T] [--domain D] [--mode M] [--outcome S]
        [--jsonl] [--verify] [--policy FILE]     calls requested in a time range (T: ISO time or 15m / 2h / 7d ago);
                                                 --verify checks them against the invariants, exit 1 names each violation
  replay [--rebuild [--suffix S]] [--to-seq N]   rebuild every read model from the stream; digests vs the live models
  policy set FILE                                store a policy document (JSON or YAML)
  policy show                                    the policy document in force
  register FILE [--status S] [--discover] [--dry-run]
                                                 validate a tool manifest (CLI, HTTP, MCP) and register its tools

defaults: --mode human, --principal $WARDEN_PRINCIPAL or "cli"
exit codes: 0 ok, 1 refused / failed / bad usage, 2 NATS unreachable`;

export const helpCommand: Command = async (_argv, io) => {
  io.out(USAGE);
  return EXIT_OK;
};
