import { defineOperation } from "../operation.js";
import { normalizeSelection, selectionFilter } from "./selection.js";
import { checkSelectionTargets } from "./selection-targets.js";
import { previewOutput } from "./smart-collection-output.js";
import { previewSelectionInput } from "./smart-collection-schemas.js";
import { matchFigures } from "./thread-figures.js";

/**
 * How many Threads a selection would gather (`count`) out of all the caller may read
 * (`baseline`), optionally in one language; one scan. @see spec § POST /api/smart-collections/preview
 */
export const previewSelection = defineOperation({
  id: "smartCollections.preview",
  access: "owner",
  description: "Counts the Threads a selection would gather, and the Threads there are in all.",
  hints: { readOnly: true },
  input: previewSelectionInput,
  output: previewOutput,
  run: async (ctx, input): Promise<{ count: number; baseline: number }> => {
    const selection = normalizeSelection(input.selection ?? {});
    await checkSelectionTargets(ctx.db, selection);
    const scope = { caller: ctx.caller, timeZone: ctx.settings.timeZone, language: input.lang };
    const { figures, baseline } = await matchFigures(ctx.db, [selectionFilter(selection, scope)], scope);
    return { count: figures[0]?.count ?? 0, baseline };
  },
});
