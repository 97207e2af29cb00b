import { fileURLToPath } from "node:url";

/**
 * The repository's example skills (`services/adapters/examples/skills`: refund-check): what
 * `warden up --demo` loads when WARDEN_SKILLS_DIR does not name another folder.
 */
export const EXAMPLE_SKILLS_DIR = fileURLToPath(new URL("../../examples/skills", import.meta.url));
