/**
 * Writes src/routes.ts, the client's runtime route table, from the HTTP adapter's route table:
 * `pnpm --filter @quire/client generate` after adding a route. test/routes.test.ts fails while the
 * two disagree. The output has no imports, so the client needs neither core nor the adapter at
 * runtime.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { operations } from "../../core/src/engine.js";
import { routes } from "../../http-adapter/src/routes.js";
import { cursorListIds, renderRouteTable } from "../test/render-routes.js";

const target = fileURLToPath(new URL("../src/routes.ts", import.meta.url));
writeFileSync(target, renderRouteTable(routes, cursorListIds(operations)));
console.log(`wrote ${routes.length} routes to ${target}`);
