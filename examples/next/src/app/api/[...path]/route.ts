// Next.js App Router: this catch-all route sends every /api/* request to Quire. Route handlers
// receive a Web `Request` and return a `Response`, which is exactly the handler's shape.
import { quire } from "../../../lib/quire.js";

// better-sqlite3 and node-postgres need Node.js, not the edge runtime.
export const runtime = "nodejs";
// Every answer depends on the database: never prerender or cache these routes at build time.
export const dynamic = "force-dynamic";

export {
  quire as DELETE,
  quire as GET,
  quire as HEAD,
  quire as OPTIONS,
  quire as PATCH,
  quire as POST,
  quire as PUT,
};
