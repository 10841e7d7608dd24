export { type FetchHandler, createHandler } from "./handler.js";
export type { HandlerOptions } from "./options.js";
export { routes } from "./routes.js";
export type { Route } from "./router.js";
export { statusOf } from "./status.js";
