export { createFileHandler, type FileHandlerOptions } from "./files.js";
export { createHandler, type FetchHandler } from "./handler.js";
export type { HandlerOptions } from "./options.js";
export type { Route } from "./router.js";
export { routes } from "./routes.js";
export { statusOf } from "./status.js";
