import { notFound } from "../errors.js";
import { defineOperation } from "../operation.js";
import { type SettingKey, settingDefinition } from "./setting-keys.js";
import { settingsOutput } from "./settings-output.js";
import { settingKeyInput } from "./settings-schemas.js";
import { settingsView } from "./settings-store.js";
import { settingsError, writeSettings } from "./write-settings.js";

/**
 * Removes one stored override, so the key falls back to the environment or its default; answers
 * like `GET /api/settings`. A key without an override answers the same (nothing to remove). An
 * unknown key is 404; an environment-only key is 400 with `details.rejectedKeys`.
 * @see docs/settings.md
 */
export const deleteSetting = defineOperation({
  id: "settings.delete",
  access: "owner",
  description:
    "Removes a site setting's stored value, so the environment's value or the default applies again.",
  hints: { destructive: true, idempotent: true },
  input: settingKeyInput,
  output: settingsOutput,
  run: async (ctx, input) => {
    const definition = settingDefinition(input.key);
    if (!definition) throw notFound("setting", input.key);
    if (!definition.editable) {
      const message = `${input.key} is set by the environment only`;
      throw settingsError(message, { key: [message] }, [input.key]);
    }
    const resolved = await writeSettings(ctx, new Map([[input.key as SettingKey, null]]));
    return settingsView(resolved);
  },
});
