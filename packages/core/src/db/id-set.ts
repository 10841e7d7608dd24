import type { SelectQueryBuilder } from "kysely";
import type { Database } from "./schema.js";

/**
 * Row IDs given as a list or as a subquery selecting `id`, for `where(column, "in", ids)`: a
 * module deleting what another owns (a whole Thread's aliases, media, addresses) needs no round trip.
 */
export type IdSet = readonly string[] | SelectQueryBuilder<Database, keyof Database, { id: string }>;
