// Serves uploaded files from the local media folder under /media (not needed with S3 storage).
import { quireMedia } from "../../../lib/quire.js";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export { quireMedia as GET, quireMedia as HEAD };
