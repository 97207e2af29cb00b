export { watchPolicyDocument, type PolicyDocumentWatch } from "@warden/bus";
