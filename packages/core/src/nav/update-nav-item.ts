import { invalidField } from "../errors.js";
import { defineOperation } from "../operation.js";
import { navItemOutput } from "./nav-output.js";
import { lockNavItem, resolveNavRows } from "./nav-rows.js";
import { updateNavItemInput } from "./nav-schemas.js";
import { type NavItem, toNavItem } from "./nav-view.js";

/**
 * Changes an item's `label` and `url`, as its type allows: a link both (its label stays 1 to 100
 * characters); a collection, smart collection or page item its label only ("" follows the target
 * again; its address is always the target's); a built-in item neither (400).
 * @see spec § PUT /api/nav-items/:id
 */
export const updateNavItem = defineOperation({
  id: "navItems.update",
  access: "owner",
  description: "Changes a navigation item's label or URL (built-in items take neither).",
  hints: { idempotent: true },
  input: updateNavItemInput,
  output: navItemOutput,
  run: async (ctx, input): Promise<NavItem> => {
    // The answer is read in the transaction: after its commit a concurrent delete could take the row.
    const [item] = await ctx.db.transaction().execute(async (trx) => {
      const row = await lockNavItem({ db: trx, dialect: ctx.dialect }, input.id);
      if (row.type === "system") {
        if (input.label !== undefined)
          throw invalidField("label", "A built-in item's label is set automatically");
        if (input.url !== undefined)
          throw invalidField("url", "A built-in item's address is set automatically");
      }
      if (row.type !== "link" && input.url !== undefined) {
        throw invalidField("url", "This item's address is its target's; only a link takes a url");
      }
      if (row.type === "link" && input.label === "") throw invalidField("label", "A link needs a label");
      await trx
        .updateTable("nav_items")
        .set({
          ...(input.label === undefined ? {} : { label: input.label }),
          ...(input.url === undefined ? {} : { url: input.url }),
          updated_at: ctx.clock.now(),
        })
        .where("id", "=", row.id)
        .execute();
      return resolveNavRows(trx, [input.id]);
    });
    if (!item) throw new Error(`nav item ${input.id} vanished inside its update`);
    return toNavItem(ctx.settings, item.row, item.target);
  },
});
