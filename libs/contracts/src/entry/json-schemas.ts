/** @warden/contracts/json-schemas: the contracts as JSON Schema files, for clients in other languages. */
export { jsonSchemaFiles } from "../json-schemas.js";
