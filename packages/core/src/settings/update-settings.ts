import { defineOperation } from "../operation.js";
import { settingsOutput } from "./settings-output.js";
import { settingsInput } from "./settings-schemas.js";
import { settingsView } from "./settings-store.js";
import { acceptChanges, settingsError, writeSettings } from "./write-settings.js";

/**
 * Stores overrides for some keys. Unknown and environment-only keys go to `rejectedKeys`; when
 * every key is rejected the answer is 400 with `details.rejectedKeys`. A value that fails its
 * key's validation is a 400 and nothing is written, not even the valid keys beside it.
 * @see docs/settings.md
 */
export const updateSettings = defineOperation({
  id: "settings.update",
  access: "owner",
  description: "Stores new values for site settings (an object of key to string); takes effect at once.",
  hints: { idempotent: true },
  input: settingsInput,
  output: settingsOutput,
  run: async (ctx, input) => {
    const { changes, rejectedKeys } = acceptChanges(input);
    if (changes.size === 0) {
      const message =
        rejectedKeys.length === 0
          ? "Send at least one setting"
          : `No setting could be changed: ${rejectedKeys.join(", ")} ${rejectedKeys.length === 1 ? "is" : "are"} unknown or not editable`;
      throw settingsError(message, {}, rejectedKeys, [message]);
    }
    const resolved = await writeSettings(ctx, changes);
    const view: ReturnType<typeof settingsView> & { rejectedKeys?: string[] } = settingsView(resolved);
    if (rejectedKeys.length > 0) view.rejectedKeys = rejectedKeys;
    return view;
  },
});
