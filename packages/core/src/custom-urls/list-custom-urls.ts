import { defineOperation } from "../operation.js";
import { type KeysetOrder, pageByKeys } from "../pagination/keyset.js";
import { customUrlPageOutput } from "./custom-url-output.js";
import { listCustomUrlsInput } from "./custom-url-schemas.js";
import { type CustomUrl, type CustomUrlRow, toCustomUrlView } from "./custom-url-view.js";

/** Newest first: `createdAt`, then ID (index `custom_urls_created`). */
const order: KeysetOrder<CustomUrlRow> = {
  name: "customUrls.created",
  direction: "desc",
  keys: [
    { column: "created_at", type: "integer" },
    { column: "id", type: "string" },
  ],
};

/**
 * Every custom URL (aliases of posts and collections, and redirects), newest first (`createdAt`,
 * then ID), one keyset page at a time; `limit` 1 to 100, default 100, clamped.
 * @see spec § GET /api/custom-urls, § Pagination
 */
export const listCustomUrls = defineOperation({
  id: "customUrls.list",
  access: "owner",
  description: "Lists custom URLs (aliases and redirects), newest first, one page at a time.",
  hints: { readOnly: true },
  input: listCustomUrlsInput,
  output: customUrlPageOutput,
  run: async (ctx, input): Promise<{ customUrls: CustomUrl[]; nextCursor: string | null }> => {
    const { rows, nextCursor } = await pageByKeys(ctx.db.selectFrom("custom_urls").selectAll(), order, input);
    return { customUrls: rows.map(toCustomUrlView), nextCursor };
  },
});
