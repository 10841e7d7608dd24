import * as z from "zod";
import type { EngineContext } from "../deps.js";
import { EngineError, invalidField } from "../errors.js";
import { meterStream } from "../files/metered-stream.js";
import { writeFailure } from "../files/stored-file.js";
import { requireStorage } from "../files/stored-objects.js";
import { defineOperation } from "../operation.js";
import { typeId } from "../shared/type-id.js";
import { requireTransport } from "./put-upload-body.js";
import { uploadPartOutput } from "./upload-output.js";
import {
  bodyParam,
  contentLengthParam,
  findOpenSession,
  throwClosed,
  touchSession,
  type UploadSessionRow,
} from "./upload-session.js";

/**
 * One part of a `multipartRelay` session, streamed to the store's multipart upload. Part N of a
 * file cut in `partSize` pieces must carry exactly its piece's bytes (every part `partSize`, the
 * last the rest); anything else is a 400. Sending a part again replaces it. Answers
 * `{ partNumber, etag }`. @see spec § Uploads (`PUT /api/uploads/:id/part?partNumber=N`)
 */
export const putUploadPart = defineOperation({
  id: "uploads.putPart",
  access: "owner",
  description: "Sends one part of a multipartRelay upload.",
  hints: { idempotent: true },
  input: z.object({
    id: typeId("upl"),
    partNumber: z.number().int().min(1).max(10_000),
    body: bodyParam,
    contentLength: contentLengthParam,
  }),
  output: uploadPartOutput,
  run: async (ctx, input) => {
    const storage = requireStorage(ctx);
    const session = await findOpenSession(ctx, input.id);
    requireTransport(session, "multipartRelay");
    const expected = expectedPartSize(session, input.partNumber);
    if (input.contentLength !== undefined && input.contentLength !== expected) {
      throw invalidField(
        "body",
        `Part ${input.partNumber} must have ${expected} bytes, not ${input.contentLength}`,
      );
    }
    const { multipart } = storage;
    if (!multipart || session.multipart_upload_id === null) {
      throw new EngineError("CONFIGURATION_ERROR", "The file store no longer offers multipart uploads");
    }
    const { stream, meter } = meterStream(input.body, { maxBytes: expected });
    let etag: string;
    try {
      ({ etag } = await multipart.uploadPart({
        key: session.storage_key,
        uploadId: session.multipart_upload_id,
        partNumber: input.partNumber,
        body: stream,
        size: expected,
      }));
    } catch (err) {
      if (meter.ended && meter.bytes !== expected) throw shortPart(input.partNumber, expected, meter.bytes);
      throw writeFailure(ctx, err, meter, { maxBytes: expected, field: "body" });
    }
    if (meter.bytes !== expected) throw shortPart(input.partNumber, expected, meter.bytes);
    await savePart(ctx, { session, partNumber: input.partNumber, etag, size: expected });
    return { partNumber: input.partNumber, etag };
  },
});

/** The exact size of part `partNumber`; 400 when the file has no such part. */
function expectedPartSize(session: UploadSessionRow, partNumber: number): number {
  const size = Number(session.size);
  const partSize = Number(session.part_size);
  const count = Math.max(1, Math.ceil(size / partSize));
  if (partNumber > count)
    throw invalidField("partNumber", `This file has ${count} parts of ${partSize} bytes`);
  return partNumber < count ? partSize : size - (count - 1) * partSize;
}

function shortPart(partNumber: number, expected: number, received: number) {
  return invalidField("body", `Part ${partNumber} must have ${expected} bytes; received ${received}`);
}

async function savePart(
  ctx: EngineContext,
  input: { session: UploadSessionRow; partNumber: number; etag: string; size: number },
): Promise<void> {
  const { session } = input;
  const stillOpen = await ctx.db.transaction().execute(async (trx) => {
    if (!(await touchSession(trx, { id: session.id, now: ctx.clock.now() }))) return false;
    await trx
      .insertInto("upload_parts")
      .values({ session_id: session.id, part_number: input.partNumber, etag: input.etag, size: input.size })
      .onConflict((oc) =>
        oc.columns(["session_id", "part_number"]).doUpdateSet({ etag: input.etag, size: input.size }),
      )
      .execute();
    return true;
  });
  if (!stillOpen) await throwClosed(ctx, session.id);
}
