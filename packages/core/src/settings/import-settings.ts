import { defineOperation } from "../operation.js";
import { importableKeys } from "./setting-keys.js";
import { settingsImportOutput } from "./settings-output.js";
import { importSettingsInput } from "./settings-schemas.js";
import { settingsView } from "./settings-store.js";
import { acceptChanges, writeSettings } from "./write-settings.js";

/**
 * Takes a settings object (such as another site's `GET /api/settings` answer's `settings`) and
 * writes only its language keys, `ADDITIONAL_LANGUAGES` and `MULTILINGUAL_ENABLED`; every other key
 * is listed in `rejectedKeys`. With no language key to write it writes nothing and still answers
 * 200. The values are checked as `PUT /api/settings` checks them. @see docs/settings.md
 */
export const importSettings = defineOperation({
  id: "settings.import",
  access: "owner",
  description:
    "Imports the language settings (ADDITIONAL_LANGUAGES, MULTILINGUAL_ENABLED) of a settings object.",
  hints: { idempotent: true },
  input: importSettingsInput,
  output: settingsImportOutput,
  run: async (ctx, input) => {
    const { changes, rejectedKeys } = acceptChanges(input, importableKeys);
    const resolved = changes.size === 0 ? await ctx.settingsStore.fresh() : await writeSettings(ctx, changes);
    return { ...settingsView(resolved), rejectedKeys };
  },
});
