import { defineOperation } from "../operation.js";
import { successOutput } from "../shared/outputs.js";
import { releaseAddress } from "./addresses.js";
import { addressOfPath } from "./custom-url-paths.js";
import { withLockedCustomUrl } from "./custom-url-record.js";
import { customUrlIdInput } from "./custom-url-schemas.js";
import { refreshPermalinks } from "./custom-url-targets.js";

/**
 * Deletes a custom URL and frees its address at once (nothing redirects from it afterwards); a
 * post that lived there moves to its next oldest alias, else to `/{slug}`. Answers ok-body.
 * @see docs/custom-urls.md
 */
export const deleteCustomUrl = defineOperation({
  id: "customUrls.delete",
  access: "owner",
  description: "Deletes a custom URL (alias or redirect) and frees its address.",
  hints: { destructive: true, idempotent: true },
  input: customUrlIdInput,
  output: successOutput,
  run: async (ctx, input) => {
    await ctx.db.transaction().execute(async (trx) => {
      const tx = { ...ctx, db: trx };
      await withLockedCustomUrl(
        tx,
        input.id,
        async () => ({ targets: [] }),
        async (row, _planned, alive) => {
          await trx.deleteFrom("custom_urls").where("id", "=", row.id).execute();
          await releaseAddress(trx, addressOfPath(row.path));
          await refreshPermalinks(tx, alive);
        },
      );
    });
    return { success: true as const };
  },
});
