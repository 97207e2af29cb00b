import { z } from "zod";

/** Side-effect grade: can it be undone? does an outsider see it at once? */
export const GRADES = ["read", "write", "send"] as const;
export const GradeSchema = z.enum(GRADES);
export type Grade = z.infer<typeof GradeSchema>;

/** Who decided to make the call. */
export const CALL_MODES = ["human", "plan", "llm"] as const;
export const CallModeSchema = z.enum(CALL_MODES);
export type CallMode = z.infer<typeof CallModeSchema>;

export function gradeRank(grade: Grade): number {
  return GRADES.indexOf(grade);
}

export function highestGrade(grades: readonly Grade[]): Grade {
  return grades.reduce<Grade>((hi, g) => (gradeRank(g) > gradeRank(hi) ? g : hi), "read");
}
