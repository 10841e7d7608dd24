import * as z from "zod";
import { defineOperation } from "../operation.js";
import { navItemsListOutput } from "./nav-output.js";
import { resolveNavRows } from "./nav-rows.js";
import { type NavItem, toNavItem } from "./nav-view.js";

/**
 * The header navigation in order, each target item showing its target's current title and
 * address; items whose target is gone (or a page no longer published) are left out. One query.
 * @see spec § GET /api/nav-items, docs/navigation.md
 */
export const listNavItems = defineOperation({
  id: "navItems.list",
  access: "owner",
  description:
    "Lists the header navigation items in order, each with its target's current title and address.",
  hints: { readOnly: true },
  input: z.object({}),
  output: navItemsListOutput,
  run: async (ctx): Promise<{ navItems: NavItem[] }> => {
    const rows = await resolveNavRows(ctx.db);
    return {
      navItems: rows
        .filter((item) => item.shown)
        .map((item) => toNavItem(ctx.settings, item.row, item.target)),
    };
  },
});
