import { notFound } from "../errors.js";
import { defineOperation } from "../operation.js";
import { successOutput } from "../shared/outputs.js";
import { navItemIdInput } from "./nav-schemas.js";

/** Deletes a navigation item (also one whose target is gone and no longer listed). */
export const deleteNavItem = defineOperation({
  id: "navItems.delete",
  access: "owner",
  description: "Deletes a navigation item.",
  hints: { destructive: true, idempotent: true },
  input: navItemIdInput,
  output: successOutput,
  run: async (ctx, input) => {
    const result = await ctx.db.deleteFrom("nav_items").where("id", "=", input.id).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw notFound("nav item", input.id);
    return { success: true as const };
  },
});
