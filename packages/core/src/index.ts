export { constantTimeEqual } from "./auth/token-hash.js";
export { type Caller, internalCaller, ownerCaller, publicCaller } from "./caller.js";
export type { CustomUrl, Resolution } from "./custom-urls/index.js";
export type { Dialect, DialectName } from "./db/dialect.js";
export type { Database } from "./db/schema.js";
export type {
  Clock,
  EngineConfig,
  EngineContext,
  EngineDeps,
  EngineHooks,
  IdGenerator,
  Links,
  Logger,
  MediaQuotaRequest,
  SiteAvailabilityRequest,
  SiteSettings,
} from "./deps.js";
export {
  type BoundOperation,
  createEngine,
  type Engine,
  type EngineApi,
  type EngineOperation,
  type OperationById,
  type OperationId,
  operations,
} from "./engine.js";
export {
  EngineError,
  type ErrorBody,
  type ErrorCode,
  errorCodes,
  isEngineError,
  toErrorBody,
  type ValidationDetails,
} from "./errors.js";
export {
  type ArchiveProgress,
  archiveVersion,
  type ExportArchiveOptions,
  exportSiteArchive,
  type ImportArchiveOptions,
  type ImportSummary,
  importSiteArchive,
  isStreamedFile,
  type StreamedFile,
} from "./export/index.js";
export { entityTag, entryId, isRawAnswer, type RawAnswer } from "./feeds/index.js";
export { type FileServing, servingOf } from "./files/file-types.js";
export { isAcceptedOnly, signBody as signGithubDelivery } from "./github-sync/index.js";
export type { MediaRecord } from "./media/index.js";
export {
  type Access,
  type AnyOperation,
  defineOperation,
  type ExecuteOptions,
  type Operation,
  type OperationContext,
  type OperationHints,
} from "./operation.js";
export type { PostView, PublicPostView } from "./posts/post-view.js";
export { type RenderedBody, renderEditorDoc, renderMarkdown } from "./render/index.js";
export {
  checkSettingValue,
  importableKeys,
  type SettingKey,
  type SettingSource,
  SettingTextError,
  settingKeys,
  settingsFromText,
} from "./settings/index.js";
export { bytesParam, inputJsonSchema } from "./shared/bytes.js";
export { randomIds, sequentialIds } from "./shared/ids.js";
export { type OutputComponents, outputComponents } from "./shared/outputs.js";
export { fixedClock, systemClock } from "./shared/time.js";
export { markVariesWithTime, variesWithTime } from "./shared/varies-with-time.js";
export type {
  ByteRange,
  ByteSource,
  ListedObject,
  ListOptions,
  MultipartOptions,
  MultipartStorage,
  MultipartUploadInfo,
  PresignedPut,
  PresignOptions,
  PutOptions,
  Storage,
  StorageRead,
  StoredObject,
} from "./storage.js";
export { chunksOf, StorageLimitError } from "./storage.js";
export type { UploadCleanup, UploadTransport } from "./uploads/index.js";
