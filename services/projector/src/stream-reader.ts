import { readCallStream } from "@warden/bus";

/** Reads a range of WARDEN_CALLS in order by direct gets (`readCallStream` of `@warden/bus`). */
export const readStream = readCallStream;
export type { StreamRange, StreamReadSummary, StreamRecord } from "@warden/bus";
