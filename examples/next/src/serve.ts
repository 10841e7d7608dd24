// Serves the route files on a plain Node server, as `next dev` would: a way to try the example
// without installing Next.js.
import { serve } from "@hono/node-server";
import { dispatch } from "./dispatch.js";

const port = Number(process.env.PORT ?? 3003);
serve({ fetch: dispatch, port, hostname: "127.0.0.1" }, (info) => {
  console.log(`Listening on http://127.0.0.1:${info.port} (the route files, without Next.js)`);
});
