/** The bytes of a body, chunk by chunk; leaving the loop early cancels the stream. */
export async function* chunksOf(
  body: ReadableStream<Uint8Array> | Uint8Array,
): AsyncGenerator<Uint8Array, void, undefined> {
  if (body instanceof Uint8Array) {
    yield body;
    return;
  }
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        return;
      }
      yield value;
    }
  } finally {
    // Not awaited: a source that is slow to cancel must not hold up the caller's error.
    if (!finished) reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
