import * as z from "zod";
import { postOutput, publicPostOutput } from "../posts/post-output.js";
import { idOf, named, nextCursor, unixTime } from "../shared/outputs.js";

function threadOf<Post extends z.ZodType>(post: Post, publicGap: boolean) {
  const gap = z.object({
    id: idOf("pst"),
    slug: z.string(),
    cursor: z.string(),
    ...(publicGap ? { permalink: z.string() } : {}),
  });
  const fold = z.object({
    leading: z.array(post),
    hidden: z.number().int().min(0),
    gap: gap.nullable(),
    trailing: z.array(post),
  });
  return z.object({
    id: idOf("pst"),
    postCount: z.number().int(),
    lastActivityAt: unixTime,
    threadUpdatedAt: unixTime,
    root: post,
    /** Only with `include=fold`. */
    fold: fold.optional(),
  });
}

/** A Thread in the editing view. @see spec § Thread */
export const threadOutput = threadOf(postOutput, false);
/** A Thread in the reading view. */
export const publicThreadOutput = threadOf(publicPostOutput, true);

/** A page of Threads (editing view). */
export const threadPageOutput = z.object({ threads: z.array(threadOutput), nextCursor });
/** A page of Threads (reading view). */
export const publicThreadPageOutput = z.object({ threads: z.array(publicThreadOutput), nextCursor });
/** A page of one Thread's posts, oldest first (editing view). */
export const threadPostsPageOutput = z.object({ posts: z.array(postOutput), nextCursor });
/** A page of one Thread's posts, oldest first (reading view). */
export const publicThreadPostsPageOutput = z.object({ posts: z.array(publicPostOutput), nextCursor });

// Shown once in the API reference, under these names.
named(threadOutput, "Thread");
named(publicThreadOutput, "PublicThread");
named(threadPageOutput, "ThreadPage");
named(publicThreadPageOutput, "PublicThreadPage");
