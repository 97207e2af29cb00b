import { JetStreamApiError } from "@nats-io/jetstream";
import { describe, expect, it } from "vitest";
import { isNotFound, isStreamCreateUnsettled, isSubjectFull } from "./nats-errors.js";

// the server's error bodies, as nats-server 2.9 answers them on a cluster that has just formed
const apiError = (code: number, err_code: number, description: string) => new JetStreamApiError({ code, err_code, description });

describe("isStreamCreateUnsettled", () => {
  it("takes a node's failed store and the stream dropped after it as worth creating again", () => {
    expect(isStreamCreateUnsettled(apiError(500, 10049, "error creating store for stream"))).toBe(true);
    expect(isStreamCreateUnsettled(apiError(404, 10059, "stream not found"))).toBe(true);
  });

  it("leaves every other refusal to its own handling", () => {
    const full = apiError(503, 10077, "maximum messages per subject exceeded");
    expect(isSubjectFull(full)).toBe(true);
    expect(isStreamCreateUnsettled(full)).toBe(false);
    expect(isStreamCreateUnsettled(apiError(400, 10058, "stream name already in use with a different configuration"))).toBe(false);
    expect(isStreamCreateUnsettled(new Error("error creating store for stream"))).toBe(false);
    expect(isNotFound(apiError(404, 10059, "stream not found"))).toBe(true);
  });
});
