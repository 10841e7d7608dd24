// The site's feeds, sitemap and robots.txt sit at the root, outside /api: Quire answers them too.
import { quire } from "../../../lib/quire.js";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export { quire as GET, quire as HEAD };
