import { deleteSetting } from "./delete-setting.js";
import { getSettings } from "./get-settings.js";
import { importSettings } from "./import-settings.js";
import { updateSettings } from "./update-settings.js";

export {
  canonicalLanguageTag,
  canonicalTimeZone,
  checkSettingValue,
  importableKeys,
  type SettingKey,
  SettingTextError,
  settingKeys,
  settingsFromText,
} from "./setting-keys.js";
export { type ResolvedSettings, type SettingSource, SettingsStore } from "./settings-store.js";

/** The settings operations: the site's settings store. */
export const settingsOperations = [getSettings, updateSettings, importSettings, deleteSetting] as const;
