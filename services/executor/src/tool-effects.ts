import { EFFECTS_MAX_TARGET_CHARS, EFFECTS_MAX_TARGETS, type EffectsObserved } from "@warden/contracts/events";
import type { Redactor } from "./domain/redactor.js";

/**
 * Where a run tells what it touched (`ctx.effects`), recorded as ToolCallFinished's
 * `effectsObserved` for the audit. Name a target so a reader knows it (`invoices/INV-1`,
 * `POST https://api.example.com/v1/refunds`) and never put a secret or a query string in it: it is
 * redacted of the call's secrets, but a token it does not know would be kept. Repeats count once;
 * each kind keeps its first EFFECTS_MAX_TARGETS targets, each cut to EFFECTS_MAX_TARGET_CHARS.
 */
export interface ToolEffects {
  /** The run read `target` (a record, a file, a table). */
  read(target: string): void;
  /** The run changed `target`. */
  wrote(target: string): void;
  /** The run called a system outside the executor (`METHOD origin/path` for HTTP). */
  called(target: string): void;
}

type Kind = "reads" | "writes" | "external";

/** The executor's side of {@link ToolEffects}: collects what a run reports, bounded. */
export class EffectsLog implements ToolEffects {
  private readonly kinds: Record<Kind, Set<string>> = { reads: new Set(), writes: new Set(), external: new Set() };
  private dropped = 0;

  read(target: string): void {
    this.add("reads", target);
  }

  wrote(target: string): void {
    this.add("writes", target);
  }

  called(target: string): void {
    this.add("external", target);
  }

  /** What was reported, cleaned by `redactor`; undefined when nothing was. */
  observed(redactor: Redactor): EffectsObserved | undefined {
    const { reads, writes, external } = this.kinds;
    if (reads.size + writes.size + external.size + this.dropped === 0) return undefined;
    const clean = (set: Set<string>) => [...set].map((t) => cut(redactor.text(t)));
    return { reads: clean(reads), writes: clean(writes), external: clean(external), ...(this.dropped === 0 ? {} : { dropped: this.dropped }) };
  }

  private add(kind: Kind, target: unknown): void {
    // a tool's bug (a non-string, an empty name) is not worth failing its call over
    if (typeof target !== "string" || target.trim() === "") return;
    const set = this.kinds[kind];
    const text = cut(target);
    if (set.has(text)) return;
    if (set.size >= EFFECTS_MAX_TARGETS) this.dropped++;
    else set.add(text);
  }
}

function cut(text: string): string {
  return text.length <= EFFECTS_MAX_TARGET_CHARS ? text : `${text.slice(0, EFFECTS_MAX_TARGET_CHARS - 1)}…`;
}
