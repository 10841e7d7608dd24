import * as z from "zod";
import { named } from "../shared/outputs.js";

/** Every key with the value in effect, and where each value comes from. @see docs/settings.md */
export const settingsOutput = z.object({
  settings: z.record(z.string(), z.string()),
  sources: z.record(z.string(), z.enum(["stored", "environment", "default"])),
});

/** `settings.import`: the settings after the import, and the keys it refused. */
export const settingsImportOutput = settingsOutput.extend({ rejectedKeys: z.array(z.string()) });

// Shown once in the API reference, under these names.
named(settingsOutput, "Settings");
