/** A response body read up to a cap; `over` says the cap was passed and the rest was not read. */
export interface CappedBody {
  readonly bytes: Buffer;
  readonly over: boolean;
}

export async function readCapped(body: ReadableStream<Uint8Array> | null, max: number): Promise<CappedBody> {
  if (body === null) return { bytes: Buffer.alloc(0), over: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: Buffer.concat(chunks), over: false };
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      return { bytes: Buffer.concat(chunks), over: true };
    }
    chunks.push(value);
  }
}
