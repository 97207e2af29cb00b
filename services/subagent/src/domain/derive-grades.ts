import { highestGrade, type Grade } from "@warden/contracts/descriptor";

export interface GradeInputs {
  readonly name: string;
  readonly allowedTools: readonly string[];
}

export interface DerivedGrades {
  readonly grades: ReadonlyMap<string, Grade>;
  /** Allowed tools that are neither registered nor defined here. */
  readonly missing: readonly string[];
}

/**
 * A subagent's grade is the highest grade among its allowed tools. Subagents defined together may
 * allow each other, so their grades are raised together until nothing changes (grades only rise,
 * so this ends).
 */
export function deriveGrades(agents: readonly GradeInputs[], registered: ReadonlyMap<string, Grade>): DerivedGrades {
  const local = new Map<string, Grade>(agents.map((a) => [a.name, "read"]));
  const missing = new Set<string>();
  for (;;) {
    let changed = false;
    for (const a of agents) {
      const grades: Grade[] = [];
      for (const t of a.allowedTools) {
        const g = local.get(t) ?? registered.get(t);
        if (g === undefined) missing.add(t);
        else grades.push(g);
      }
      const next = highestGrade(grades);
      if (next !== local.get(a.name)) {
        local.set(a.name, next);
        changed = true;
      }
    }
    if (!changed) return { grades: local, missing: [...missing].sort() };
  }
}
