import { searchPosts } from "./search-posts.js";

/** The search operations. */
export const searchOperations = [searchPosts] as const;
