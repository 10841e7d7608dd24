import { notFound } from "../errors.js";
import { defineOperation } from "../operation.js";
import { collectionOutput } from "./collection-output.js";
import { findCollection } from "./collection-rows.js";
import { collectionIdInput } from "./collection-schemas.js";
import { toCollectionView } from "./collection-view.js";

/** One collection, without figures. @see spec § GET /api/collections/:id */
export const getCollection = defineOperation({
  id: "collections.get",
  access: "owner",
  description: "Reads one collection.",
  hints: { readOnly: true },
  input: collectionIdInput,
  output: collectionOutput,
  run: async (ctx, input) => {
    const row = await findCollection(ctx.db, input.id);
    if (!row) throw notFound("collection", input.id);
    return toCollectionView(row);
  },
});
