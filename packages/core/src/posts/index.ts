import { checkPostSlug } from "./check-slug.js";
import { createManyPosts } from "./create-many.js";
import { createPost } from "./create-post.js";
import { deletePost } from "./delete-post.js";
import { getPost } from "./get-post.js";
import { getPublicPost } from "./get-public-post.js";
import { listPosts } from "./list-posts.js";
import { setPostLanguage } from "./set-language.js";
import { updatePost } from "./update-post.js";

/** The post operations: the owner's editing surface and the public reading one. */
export const postOperations = [
  createPost,
  getPost,
  updatePost,
  deletePost,
  listPosts,
  checkPostSlug,
  getPublicPost,
  setPostLanguage,
  createManyPosts,
] as const;
