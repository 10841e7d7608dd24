import * as z from "zod";
import { idOf, unixTime } from "../shared/outputs.js";

/** `posts.search`: the query as read, the results best first, their number. @see docs/search.md */
export const searchOutput = z.object({
  query: z.string(),
  results: z.array(
    z.object({
      id: idOf("pst"),
      format: z.enum(["note", "link", "quote"]),
      slug: z.string(),
      title: z.string().nullable().optional(),
      url: z.string().nullable().optional(),
      sourceName: z.string().nullable().optional(),
      sourceUrl: z.string().nullable().optional(),
      displayTitle: z.string(),
      publishedAt: unixTime.nullable(),
      permalink: z.string(),
      visibility: z.enum(["public", "latest_hidden", "private"]),
      threadId: idOf("pst"),
      replyToId: idOf("pst").nullable(),
      snippet: z.string(),
    }),
  ),
  count: z.number().int(),
});
