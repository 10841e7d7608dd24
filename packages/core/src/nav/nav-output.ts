import * as z from "zod";
import { idOf, named, unixTime } from "../shared/outputs.js";

/** A nav item; only the target field of its type is present. @see spec § Nav item */
export const navItemOutput = z.object({
  id: idOf("nav"),
  type: z.enum(["link", "system", "collection", "smart_collection", "page"]),
  systemKey: z.enum(["rss", "settings", "collections", "archive"]).optional(),
  collectionId: idOf("col").optional(),
  smartCollectionId: idOf("smc").optional(),
  postId: idOf("pst").optional(),
  label: z.string(),
  displayLabel: z.string(),
  url: z.string(),
  position: z.string(),
  createdAt: unixTime,
  updatedAt: unixTime,
});

/** `navItems.list`. */
export const navItemsListOutput = z.object({ navItems: z.array(navItemOutput) });

// Shown once in the API reference, under these names.
named(navItemOutput, "NavItem");
