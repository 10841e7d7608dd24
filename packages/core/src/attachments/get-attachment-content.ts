import * as z from "zod";
import { notFound } from "../errors.js";
import { defineOperation } from "../operation.js";
import { typeId } from "../shared/type-id.js";
import { attachmentContentOutput } from "./attachment-output.js";

/** A text attachment's Markdown. @see spec § GET /api/attachments/:id/content */
export const getAttachmentContent = defineOperation({
  id: "attachments.getContent",
  access: "owner",
  description: "Reads a text attachment's Markdown.",
  hints: { readOnly: true },
  input: z.object({ id: typeId("med") }),
  output: attachmentContentOutput,
  run: async (ctx, input) => {
    const row = await ctx.db
      .selectFrom("media")
      .select(["id", "text_content", "summary", "chars"])
      .where("id", "=", input.id)
      .where("type", "=", "text")
      .executeTakeFirst();
    if (!row) throw notFound("text attachment", input.id);
    return {
      id: row.id,
      type: "text" as const,
      contentFormat: "markdown" as const,
      content: row.text_content ?? "",
      summary: row.summary,
      chars: row.chars,
    };
  },
});
