import { invalidField } from "../errors.js";
import { defineOperation } from "../operation.js";
import { moveAddress } from "./addresses.js";
import { customUrlOutput } from "./custom-url-output.js";
import { addressOfPath, normalizeCustomUrlPath } from "./custom-url-paths.js";
import { planTarget, withLockedCustomUrl } from "./custom-url-record.js";
import { updateCustomUrlInput } from "./custom-url-schemas.js";
import { refreshPermalinks } from "./custom-url-targets.js";
import { type CustomUrl, toCustomUrlView } from "./custom-url-view.js";

/**
 * Changes a custom URL: any of `path`, `targetType`, `targetId`, `toPath`, `redirectType`; fields
 * not sent are kept. A new path moves the address (claimed first: 409 when taken; the old one is
 * freed at once, with no redirect left behind). Switching between an alias and a redirect clears
 * the old kind's fields and needs the new kind's. Both the old and the new target's permalinks
 * follow. 200 with the custom URL. @see docs/custom-urls.md
 */
export const updateCustomUrl = defineOperation({
  id: "customUrls.update",
  access: "owner",
  description: "Changes a custom URL's path, target or redirect; fields not sent are kept.",
  hints: { idempotent: true },
  input: updateCustomUrlInput,
  output: customUrlOutput,
  run: async (ctx, input): Promise<CustomUrl> => {
    const newPath = input.path === undefined ? undefined : normalizeCustomUrlPath(input.path);
    return ctx.db.transaction().execute(async (trx) => {
      const tx = { ...ctx, db: trx };
      return withLockedCustomUrl(
        tx,
        input.id,
        async (row) => {
          const plan = await planTarget(tx, input, newPath ?? row.path, row);
          return { plan, targets: plan.target ? [plan.target] : [] };
        },
        async (row, { plan }, alive) => {
          if (plan.target && !alive.some((t) => t.id === plan.target.id)) {
            throw invalidField("targetId", `Unknown ${plan.targetType} ${input.targetId ?? plan.target.id}`);
          }
          const path = newPath ?? row.path;
          if (path !== row.path) {
            await moveAddress(tx, {
              from: addressOfPath(row.path),
              to: addressOfPath(path),
              ownerType: "custom_url",
              ownerId: row.id,
              field: "path",
            });
          }
          const changes = {
            path,
            target_type: plan.targetType,
            target_id: plan.target?.id ?? null,
            to_path: plan.toPath,
            redirect_type: plan.redirectType,
          };
          await trx.updateTable("custom_urls").set(changes).where("id", "=", row.id).execute();
          await refreshPermalinks(tx, alive);
          return toCustomUrlView({ ...row, ...changes });
        },
      );
    });
  },
});
