import { abortUpload } from "./abort-upload.js";
import { completeUpload } from "./complete-upload.js";
import { initUpload } from "./init-upload.js";
import { putUploadBody } from "./put-upload-body.js";
import { putUploadPart } from "./put-upload-part.js";
import { putUploadPoster } from "./put-upload-poster.js";

/** The upload session operations. @see spec § Uploads */
export const uploadOperations = [
  initUpload,
  putUploadBody,
  putUploadPart,
  putUploadPoster,
  completeUpload,
  abortUpload,
] as const;

export { cleanupExpiredUploads, type UploadCleanup } from "./cleanup-expired-uploads.js";
export type { UploadTransport } from "./init-upload.js";
