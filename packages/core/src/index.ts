export { type Caller, internalCaller, ownerCaller, publicCaller } from "./caller.js";
export { type OpenDatabaseOptions, openDatabase } from "./db/open.js";
export type { Database } from "./db/schema.js";
export type {
  Clock,
  DialectName,
  EngineConfig,
  EngineContext,
  EngineDeps,
  IdGenerator,
  Logger,
} from "./deps.js";
export { type BoundOperation, createEngine, type Engine, type EngineApi, operationGroups } from "./engine.js";
export {
  EngineError,
  type ErrorBody,
  type ErrorCode,
  errorCodes,
  toErrorBody,
  type ValidationDetails,
} from "./errors.js";
export type { MediaRecord } from "./media/index.js";
export { type Access, defineOperation, type Operation, type OperationContext } from "./operation.js";
export type { PostView, PublicPostView } from "./posts/post-view.js";
export { type RenderedBody, renderEditorDoc, renderMarkdown } from "./render/index.js";
export { randomIds, sequentialIds } from "./shared/ids.js";
export { fixedClock, systemClock } from "./shared/time.js";
export type {
  ByteRange,
  ByteSource,
  MultipartOptions,
  MultipartStorage,
  PresignedPut,
  PresignOptions,
  PutOptions,
  Storage,
  StorageRead,
  StoredObject,
} from "./storage.js";
export { chunksOf, StorageLimitError } from "./storage.js";
export { type FileServing, servingOf } from "./uploads/file-types.js";
export type { UploadCleanup, UploadFormPart, UploadTransport } from "./uploads/index.js";
