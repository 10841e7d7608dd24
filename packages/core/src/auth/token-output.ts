import * as z from "zod";
import { idOf, unixTime } from "../shared/outputs.js";

/** `tokens.list`: names and use times, never secrets. */
export const tokenListOutput = z.object({
  tokens: z.array(
    z.object({ id: idOf("tok"), name: z.string(), createdAt: unixTime, lastUsedAt: unixTime.nullable() }),
  ),
});

/** `tokens.create`: the token's secret, shown this once. */
export const tokenCreatedOutput = z.object({
  id: idOf("tok"),
  name: z.string(),
  token: z.string(),
  createdAt: unixTime,
});
