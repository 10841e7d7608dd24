import * as z from "zod";
import { queryText } from "../search/search-schemas.js";
import { limitParam } from "../shared/list-params.js";
import { typeId } from "../shared/type-id.js";

/** `{ id }`: the post (any post of a Thread; its root is the one translated). */
export const translationPostInput = z.object({ id: typeId("pst") });

/** Input of `translations.link`: `postId` joins `id` as a translation. */
export const linkTranslationInput = z.object({ id: typeId("pst"), postId: typeId("pst") });

/** Input of `translations.candidates`. @see spec § Limits (translation candidates) */
export const translationCandidatesInput = z.object({
  id: typeId("pst"),
  q: queryText,
  limit: limitParam({ max: 20, default: 8 }),
});

/** Input of `translations.resolve`. @see spec § Limits (translation resolve `url`) */
export const resolveTranslationInput = z.object({
  id: typeId("pst"),
  url: z.string().trim().min(1).max(2048),
});
