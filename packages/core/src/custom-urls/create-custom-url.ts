import { invalidField } from "../errors.js";
import { defineOperation } from "../operation.js";
import { claimAddress } from "./addresses.js";
import { customUrlOutput } from "./custom-url-output.js";
import { addressOfPath, normalizeCustomUrlPath } from "./custom-url-paths.js";
import { planTarget } from "./custom-url-record.js";
import { createCustomUrlInput } from "./custom-url-schemas.js";
import { lockAliasTargets, refreshPermalinks } from "./custom-url-targets.js";
import { type CustomUrl, toCustomUrlView } from "./custom-url-view.js";

/**
 * Creates a custom URL: an alias of a post or a collection (`targetId`: its ID or slug), or a
 * redirect (`toPath`, `redirectType` 301 or 302, default 301). The path takes its address in the
 * site's one namespace (409 when a post, collection, smart collection or custom URL holds it); a
 * post's permalink follows its oldest alias. 201 with the custom URL. @see docs/custom-urls.md
 */
export const createCustomUrl = defineOperation({
  id: "customUrls.create",
  access: "owner",
  description:
    "Creates a custom URL: an alias of a post or collection (targetId: ID or slug) or a redirect (toPath, redirectType).",
  input: createCustomUrlInput,
  output: customUrlOutput,
  run: async (ctx, input): Promise<CustomUrl> => {
    const path = normalizeCustomUrlPath(input.path);
    const id = ctx.ids.generate("pth");
    return ctx.db.transaction().execute(async (trx) => {
      const tx = { ...ctx, db: trx };
      const plan = await planTarget(tx, input, path);
      if (plan.target) {
        const [alive] = await lockAliasTargets(tx, [plan.target]);
        if (!alive) throw invalidField("targetId", `Unknown ${plan.targetType} ${input.targetId}`);
      }
      await claimAddress(tx, {
        path: addressOfPath(path),
        ownerType: "custom_url",
        ownerId: id,
        field: "path",
      });
      const row = {
        id,
        path,
        target_type: plan.targetType,
        target_id: plan.target?.id ?? null,
        to_path: plan.toPath,
        redirect_type: plan.redirectType,
        created_at: ctx.clock.now(),
      };
      await trx.insertInto("custom_urls").values(row).execute();
      if (plan.target) await refreshPermalinks(tx, [plan.target]);
      return toCustomUrlView(row);
    });
  },
});
