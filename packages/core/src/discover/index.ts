import { discoverPosts } from "./discover-posts.js";

export { isListedForDiscovery } from "./discover-posts.js";

/** The discovery listing's read (docs/discovery.md). */
export const discoverOperations = [discoverPosts] as const;
