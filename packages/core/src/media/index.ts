import { deleteMedia } from "./delete-media.js";
import { getMedia } from "./get-media.js";
import { listMedia } from "./list-media.js";
import { updateMedia } from "./update-media.js";
import { uploadMedia } from "./upload-media.js";

/** The media operations. @see spec § Media, § POST /api/upload */
export const mediaOperations = [listMedia, getMedia, updateMedia, deleteMedia, uploadMedia] as const;

export type { MediaRecord } from "./media-view.js";
