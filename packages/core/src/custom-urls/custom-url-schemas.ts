import * as z from "zod";
import { cursorParam, limitParam } from "../shared/list-params.js";
import { typeId } from "../shared/type-id.js";

/** What a custom URL is: an alias of a post or a collection, or a redirect. @see spec § Custom URL */
export const customUrlTargetType = z.enum(["post", "collection", "redirect"]);
/** One of {@link customUrlTargetType}. */
export type CustomUrlTargetType = z.infer<typeof customUrlTargetType>;

/** A redirect's HTTP status: numeric 301 (default) or 302. */
export const redirectType = z.union([z.literal(301), z.literal(302)]);

// Over-long text is refused by the path rules with a clearer message; these caps only bound work.
const pathText = z.string().min(1).max(4096);
const targetIdText = z.string().min(1).max(300);

/** Input of `customUrls.list`. @see spec § GET /api/custom-urls */
export const listCustomUrlsInput = z.object({
  limit: limitParam({ max: 100, default: 100 }),
  cursor: cursorParam,
});

/** Input of `customUrls.create`: an alias (`targetId`) or a redirect (`toPath`, `redirectType`). */
export const createCustomUrlInput = z.object({
  path: pathText,
  targetType: customUrlTargetType,
  targetId: targetIdText.nullable().optional(),
  toPath: pathText.nullable().optional(),
  redirectType: redirectType.nullable().optional(),
});
/** The parsed input of `customUrls.create`. */
export type CreateCustomUrlInput = z.output<typeof createCustomUrlInput>;

/** Input of `customUrls.update`: any of the create fields; the rest are kept. */
export const updateCustomUrlInput = createCustomUrlInput.partial().extend({ id: typeId("pth") });
/** The parsed input of `customUrls.update`. */
export type UpdateCustomUrlInput = z.output<typeof updateCustomUrlInput>;

/** Input of `customUrls.delete`. */
export const customUrlIdInput = z.object({ id: typeId("pth") });

/** Input of `addresses.resolve`: a public path as a visitor requested it (site path prefix included). */
export const resolveAddressInput = z.object({ path: z.string().min(1).max(2048) });
