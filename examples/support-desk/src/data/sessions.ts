export interface Turn {
  readonly role: "customer" | "agent";
  readonly text: string;
}

/** Sample support conversations, by session id. */
export const SESSIONS: ReadonlyMap<number, readonly Turn[]> = new Map([
  [
    1,
    [
      { role: "customer", text: "refund for order 8841 please, the blender arrived broken" },
      { role: "agent", text: "Sorry to hear that. Could you send a photo of the damage?" },
      { role: "customer", text: "Sent it. I would rather have my money back than a new one." },
    ],
  ],
  [
    2,
    [
      { role: "customer", text: "password reset email never arrives" },
      { role: "agent", text: "Please check your spam folder and confirm the address you use to sign in." },
      { role: "customer", text: "Nothing in spam, the address is right." },
    ],
  ],
  [
    3,
    [
      { role: "customer", text: "delivery is late, no tracking update for a week" },
      { role: "agent", text: "Let me look at the carrier's scans for you." },
    ],
  ],
  [
    4,
    [
      { role: "customer", text: "charged twice for my subscription this month" },
      { role: "agent", text: "One of those may be a pre-authorisation. I will check the settlement." },
      { role: "customer", text: "Both show as settled in my bank app." },
    ],
  ],
]);
