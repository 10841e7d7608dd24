/**
 * An operation's answer that is a file made while it is sent (a ZIP export): adapters send `body`
 * as it comes, with `contentType` and a download named `filename`; it is never held whole in
 * memory. In-process callers pipe `body` to a file.
 */
export interface StreamedFile {
  /** Marks the answer as a streamed file for adapters (a JSON answer never has it). */
  readonly streamed: true;
  contentType: string;
  /** The name a download is saved under. */
  filename: string;
  body: ReadableStream<Uint8Array>;
}

/** True for an operation's answer that is a {@link StreamedFile}. */
export function isStreamedFile(value: unknown): value is StreamedFile {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { streamed?: unknown }).streamed === true &&
    (value as { body?: unknown }).body instanceof ReadableStream
  );
}

/**
 * A pull-driven stream over an async generator: the next piece is produced only when the reader
 * asks for it, so a slow reader holds back the producer instead of buffering the whole file.
 * Cancelling the stream (a client that went away) stops the generator.
 */
export function pullStream(pieces: AsyncGenerator<Uint8Array, void, undefined>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await pieces.next();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        } catch (err) {
          controller.error(err);
        }
      },
      async cancel() {
        await pieces.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
