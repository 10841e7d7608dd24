import * as z from "zod";
import { invalidField } from "../errors.js";
import { classifyFileType } from "../files/file-types.js";
import { storeBody } from "../files/stored-file.js";
import { defineOperation } from "../operation.js";
import { typeId } from "../shared/type-id.js";
import {
  bodyParam,
  contentLengthParam,
  findOpenSession,
  forgetLateWrite,
  throwClosed,
  touchSession,
  type UploadSessionRow,
} from "./upload-session.js";

/**
 * The whole file of a `relay` session, streamed to storage: more bytes than declared cut the body
 * off, fewer (or a different SHA-256 when one was declared) are a 400, and either way nothing is
 * kept. Sending again replaces an earlier body. Answers nothing (HTTP 204).
 * @see spec § Uploads (`PUT /api/uploads/:id/body`)
 */
export const putUploadBody = defineOperation({
  id: "uploads.putBody",
  access: "owner",
  description: "Sends the whole file of a relay upload.",
  hints: { idempotent: true },
  input: z.object({ id: typeId("upl"), body: bodyParam, contentLength: contentLengthParam }),
  run: async (ctx, input) => {
    const session = await findOpenSession(ctx, input.id);
    requireTransport(session, "relay");
    const size = Number(session.size);
    if (input.contentLength !== undefined && input.contentLength !== size) {
      throw invalidField("body", `The body has ${input.contentLength} bytes, not the ${size} declared`);
    }
    try {
      await storeBody(ctx, {
        key: session.storage_key,
        body: input.body,
        contentType: classifyFileType(session.mime_type, session.filename).storageContentType,
        maxBytes: size,
        exactSize: size,
        field: "body",
        checksum: session.checksum_sha256,
      });
    } catch (err) {
      // A refused body may have replaced (then lost) an earlier one: the session has none now.
      await touchSession(ctx.db, { id: session.id, now: ctx.clock.now(), changes: { received_size: null } });
      throw err;
    }
    const now = ctx.clock.now();
    if (!(await touchSession(ctx.db, { id: session.id, now, changes: { received_size: size } }))) {
      await forgetLateWrite(ctx, session.id, [session.storage_key]);
      await throwClosed(ctx, session.id);
    }
    return null;
  },
});

/** 400 when a session takes its file through another transport. */
export function requireTransport(session: UploadSessionRow, transport: string): void {
  if (session.transport !== transport) {
    throw invalidField(
      "transport",
      `Upload ${session.id} takes its file through its ${session.transport} transport`,
    );
  }
}
