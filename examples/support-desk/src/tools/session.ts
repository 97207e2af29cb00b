import { z } from "zod";
import { defineTool } from "@warden/executor";
import { SESSIONS } from "../data/sessions.js";

export const sessionFetch = defineTool({
  name: "session.fetch",
  // 1.1.0: action type read
  version: "1.1.0",
  title: "Fetch a support conversation",
  description: "Use when you need to read what a customer and the agents said in a support session, turn by turn, before answering or filing a ticket.",
  grade: "read",
  actionType: "read",
  idempotent: true,
  input: z.strictObject({ id: z.int().describe("the session id") }),
  handler: ({ id }) => {
    const turns = SESSIONS.get(id);
    if (turns === undefined) throw new Error(`no session ${id}`);
    return turns;
  },
});
