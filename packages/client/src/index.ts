export { type ClientOptions, createClient, type QuireClient, type UploadOptions } from "./client.js";
export { isQuireError, QuireError } from "./errors.js";
export type { ClientRoute, InputSource } from "./route.js";
export { routeTable } from "./routes.js";
export type {
  CallOptions,
  ClientBytes,
  ClientFunction,
  ClientGroup,
  ClientInput,
  ClientIterator,
  ClientOutput,
  MediaDetailsInput,
  PagedOperationId,
  PageItem,
  RoutedOperationId,
  SchemaInput,
} from "./types.js";
