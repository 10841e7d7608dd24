import { getPublicThread } from "./get-public-thread.js";
import { getThread } from "./get-thread.js";
import { listPublicThreadPosts } from "./list-public-thread-posts.js";
import { listPublicThreads } from "./list-public-threads.js";
import { listThreadPosts } from "./list-thread-posts.js";
import { listThreads } from "./list-threads.js";

/** The Thread operations: the owner's surface (`threads.*`) and the public one (`publicThreads.*`). */
export const threadOperations = [
  listThreads,
  getThread,
  listThreadPosts,
  listPublicThreads,
  getPublicThread,
  listPublicThreadPosts,
] as const;
