/** Where an operation's input goes besides its path parameters (the HTTP adapter's input sources). */
export type InputSource = "query" | "body" | "queryAndBody" | "none" | "stream" | "form" | "raw";

/** One route of the client's table (src/routes.ts, generated from the HTTP adapter's). */
export interface ClientRoute {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Path below the site prefix, with `:name` parameters filled from the input's fields. */
  path: string;
  input: InputSource;
  status?: number;
  /** A cursor list: its input takes `cursor`, its answer carries `nextCursor` (the client adds an iterator). */
  cursor?: true;
}
