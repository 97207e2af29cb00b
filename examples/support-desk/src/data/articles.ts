export interface Article {
  readonly id: string;
  readonly title: string;
  readonly tags: readonly string[];
  readonly body: string;
}

/** The demo knowledge base: a dozen support articles, in memory. */
export const ARTICLES: readonly Article[] = [
  {
    id: "KB-001",
    title: "How to request a refund",
    tags: ["refund", "billing", "payment"],
    body: "Customers can request a refund within 30 days of purchase. Open the order, choose Request refund, pick a reason. Refunds reach the original payment method in 5 to 10 business days.",
  },
  {
    id: "KB-002",
    title: "Refund status and timelines",
    tags: ["refund", "billing"],
    body: "A refund shows as pending until the bank settles it. Card refunds take 5 to 10 business days, wallet refunds one day. Send the refund reference if a customer's bank asks for it.",
  },
  {
    id: "KB-003",
    title: "Resetting a forgotten password",
    tags: ["password", "login", "account"],
    body: "On the sign-in page choose Forgot password and enter the account email. The reset link is valid for one hour. If no email arrives, check spam and the address on file.",
  },
  {
    id: "KB-004",
    title: "Two-factor authentication codes not arriving",
    tags: ["2fa", "login", "security", "sms"],
    body: "SMS codes can be delayed by carriers. Ask the customer to wait two minutes, then use a backup code or the authenticator app. Support can reset two-factor only after identity checks.",
  },
  {
    id: "KB-005",
    title: "Changing the delivery address of an order",
    tags: ["shipping", "delivery", "address", "order"],
    body: "The delivery address can be changed until the order is packed. After that, the carrier's redirect service is the only option and may cost extra.",
  },
  {
    id: "KB-006",
    title: "Tracking a delayed delivery",
    tags: ["shipping", "delivery", "tracking", "late"],
    body: "Use the tracking link in the shipping email. A parcel without a scan for 5 business days is treated as lost: offer a replacement or a refund.",
  },
  {
    id: "KB-007",
    title: "Damaged or wrong item received",
    tags: ["return", "damaged", "order", "replacement"],
    body: "Ask for a photo of the item and the label. Damaged or wrong items get a free return label and a replacement or refund, customer's choice.",
  },
  {
    id: "KB-008",
    title: "Cancelling a subscription",
    tags: ["subscription", "cancel", "billing"],
    body: "Subscriptions can be cancelled any time from Account, Plans. Access continues to the end of the paid period; there is no partial refund for unused days.",
  },
  {
    id: "KB-009",
    title: "Double charge on a card",
    tags: ["billing", "payment", "charge", "refund"],
    body: "A second charge is often a pre-authorisation that drops off within 3 days. If both charges settle, refund the duplicate and note the order number on the ticket.",
  },
  {
    id: "KB-010",
    title: "Updating invoice details for a company",
    tags: ["invoice", "billing", "company", "vat"],
    body: "Company name, address and VAT number can be edited before an invoice is issued. Issued invoices are corrected by a credit note and a new invoice.",
  },
  {
    id: "KB-011",
    title: "App crashes on start",
    tags: ["app", "crash", "mobile", "bug"],
    body: "Ask for the app version and device. Updating the app and restarting the phone fixes most crashes; otherwise collect logs from Settings, Help, Send diagnostics.",
  },
  {
    id: "KB-012",
    title: "Closing an account and deleting data",
    tags: ["account", "delete", "privacy", "gdpr"],
    body: "Account deletion is final and removes order history after the legal retention period. Confirm the request from the account email before passing it to the privacy team.",
  },
];
