import * as z from "zod";
import { defineOperation } from "../operation.js";
import { settingsOutput } from "./settings-output.js";
import { settingsView } from "./settings-store.js";

/**
 * Every key of the site's settings with the value in effect (the stored override, else the
 * environment's, else the built-in default) and where it comes from. Reads the store, not the
 * cached copy, and refreshes the copy with it. @see docs/settings.md
 */
export const getSettings = defineOperation({
  id: "settings.get",
  access: "owner",
  description:
    "Lists every site setting with the value in effect and whether it is stored, from the environment or a default.",
  hints: { readOnly: true, idempotent: true },
  input: z.object({}),
  output: settingsOutput,
  run: async (ctx) => settingsView(await ctx.settingsStore.fresh()),
});
