import { defineOperation } from "../operation.js";
import { smartCollectionOutput } from "./smart-collection-output.js";
import { findSmartCollection } from "./smart-collection-rows.js";
import { smartCollectionIdInput } from "./smart-collection-schemas.js";
import { type SmartCollection, toSmartCollection } from "./smart-collection-view.js";

/** One smart collection, without counts. @see spec § GET /api/smart-collections/:id */
export const getSmartCollection = defineOperation({
  id: "smartCollections.get",
  access: "owner",
  description: "Reads one smart collection by ID.",
  hints: { readOnly: true },
  input: smartCollectionIdInput,
  output: smartCollectionOutput,
  run: async (ctx, input): Promise<SmartCollection> =>
    toSmartCollection(await findSmartCollection(ctx.db, input.id)),
});
