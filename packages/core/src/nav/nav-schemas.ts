import * as z from "zod";
import { directoryUrl } from "../collections/collection-schemas.js";
import { typeId } from "../shared/type-id.js";

/** Longest nav label, in characters after trimming. @see spec § Limits */
export const maxNavLabelLength = 100;

/** The built-in items. @see spec § Nav item */
export const systemKey = z.enum(["rss", "settings", "collections", "archive"]);
/** One built-in item's key. */
export type SystemKey = z.infer<typeof systemKey>;

/** A link's label: 1 to 100 characters after trimming. */
const linkLabel = z.string().trim().min(1).max(maxNavLabelLength);
/** A target item's label: blank (stored "") follows the target's title. */
const targetLabel = z.string().trim().max(maxNavLabelLength);

/** Input of `navItems.create`, by `type`. @see spec § POST /api/nav-items */
export const createNavItemInput = z.discriminatedUnion("type", [
  z.object({ type: z.literal("link"), label: linkLabel, url: directoryUrl }),
  z.object({ type: z.literal("system"), systemKey }),
  z.object({ type: z.literal("collection"), collectionId: typeId("col"), label: targetLabel.optional() }),
  z.object({
    type: z.literal("smart_collection"),
    smartCollectionId: typeId("smc"),
    label: targetLabel.optional(),
  }),
  z.object({ type: z.literal("page"), postId: typeId("pst"), label: targetLabel.optional() }),
]);
/** Parsed input of `navItems.create`. */
export type CreateNavItemInput = z.output<typeof createNavItemInput>;

/**
 * Input of `navItems.update`: only `label` and `url`. Which of them an item takes depends on its
 * type (checked against the stored item): a link both, a target item its label, a system item neither.
 */
export const updateNavItemInput = z.object({
  id: typeId("nav"),
  label: z.string().trim().max(maxNavLabelLength).optional(),
  url: directoryUrl.optional(),
});

/** Input of `navItems.move`: the neighbours it goes between; neither moves it to the end. */
export const moveNavItemInput = z.object({
  id: typeId("nav"),
  after: typeId("nav").nullable().optional(),
  before: typeId("nav").nullable().optional(),
});

/** `{ id }` of one nav item. */
export const navItemIdInput = z.object({ id: typeId("nav") });
