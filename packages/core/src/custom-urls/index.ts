import { createCustomUrl } from "./create-custom-url.js";
import { deleteCustomUrl } from "./delete-custom-url.js";
import { listCustomUrls } from "./list-custom-urls.js";
import { resolveAddress } from "./resolve-address.js";
import { updateCustomUrl } from "./update-custom-url.js";

/** The custom URL operations (owner) and address resolution (public). */
export const customUrlOperations = [
  listCustomUrls,
  createCustomUrl,
  updateCustomUrl,
  deleteCustomUrl,
  resolveAddress,
] as const;

export type { CustomUrl } from "./custom-url-view.js";
export type { Resolution } from "./resolve-address.js";
