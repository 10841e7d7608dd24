/** Who is asking. Adapters resolve it from the request; in-process code passes it directly. */
export type Caller = { role: "owner"; tokenId?: string } | { role: "public" } | { role: "internal" };

/** The site owner (session, API token, or trusted in-process code). */
export const ownerCaller: Caller = { role: "owner" };
/** An anonymous reader of the public surface. */
export const publicCaller: Caller = { role: "public" };
/** An operator holding the internal admin token. */
export const internalCaller: Caller = { role: "internal" };
