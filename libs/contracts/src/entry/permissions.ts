/** @warden/contracts/permissions: the permission matrix as data: what each identity may publish, subscribe to and read. */
export * from "../permissions.js";
