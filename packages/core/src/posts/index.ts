import { checkPostSlug } from "./check-slug.js";
import { createPost } from "./create-post.js";
import { deletePost } from "./delete-post.js";
import { getPost } from "./get-post.js";
import { getPublicPost } from "./get-public-post.js";
import { listPosts } from "./list-posts.js";
import { updatePost } from "./update-post.js";

/** The post operations of the owner's surface. */
export const postOperations = {
  create: createPost,
  get: getPost,
  update: updatePost,
  delete: deletePost,
  list: listPosts,
  slug: checkPostSlug,
};

/** The post operations of the public surface. */
export const publicPostOperations = {
  get: getPublicPost,
};
