export { createFileHandler, type FileHandlerOptions } from "./files.js";
export { createHandler, type FetchHandler } from "./handler.js";
export { apiLinks } from "./links.js";
export { type OpenApiDocument, openApiDocument } from "./openapi.js";
export type { HandlerOptions, SessionOptions } from "./options.js";
export type { RateLimitOptions, RateLimitStore } from "./rate-limit.js";
export type { Route } from "./router.js";
export { inProcessOnly, routes } from "./routes.js";
export { statusOf } from "./status.js";
