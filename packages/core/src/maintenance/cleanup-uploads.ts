import { defineOperation } from "../operation.js";
import { cleanupExpiredUploads } from "../uploads/cleanup-expired-uploads.js";
import { cleanupUploadsInput, cleanupUploadsOutput } from "./maintenance-schemas.js";

/**
 * One bounded upload cleanup pass: expires open sessions past their lifetime (deleting their
 * bytes), removes finished session rows past their retention, and sweeps the store for orphaned
 * files from where the last sweep stopped. Safe beside other writers and other cleanups.
 * @see docs/internal-admin.md § Upload cleanup, docs/media.md § Cleanup
 */
export const cleanupUploads = defineOperation({
  id: "uploads.cleanup",
  access: "internal",
  description: "Expires stale upload sessions, removes old finished ones and sweeps orphaned files.",
  hints: { destructive: true, idempotent: true },
  input: cleanupUploadsInput,
  output: cleanupUploadsOutput,
  run: (ctx, input) =>
    cleanupExpiredUploads(ctx, { limit: input.limit, sweep: input.sweep, sweepObjects: input.sweepObjects }),
});
