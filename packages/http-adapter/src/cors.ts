/** Allowed origins: `"*"` for all, or an explicit set (empty: cross-origin access off). */
export type CorsPolicy = "*" | Set<string>;

/** Reads the `corsOrigins` option. @see spec § Limits (`CORS_ORIGINS`) */
export function corsPolicy(option: string | string[] | undefined): CorsPolicy {
  if (option === undefined) return "*";
  const list = Array.isArray(option) ? option : option.split(",");
  const origins = list.map((origin) => origin.trim()).filter(Boolean);
  return origins.includes("*") ? "*" : new Set(origins);
}

/** The CORS headers for a request's origin, or none when it is not allowed. */
export function corsHeaders(policy: CorsPolicy, origin: string | null): Record<string, string> {
  if (!origin) return {};
  if (policy === "*") return { "access-control-allow-origin": "*" };
  if (!policy.has(origin)) return {};
  return {
    "access-control-allow-origin": origin,
    "access-control-allow-credentials": "true",
    vary: "Origin",
  };
}

/** Headers answering a preflight `OPTIONS` request. */
export function preflightHeaders(policy: CorsPolicy, request: Request): Record<string, string> {
  const base = corsHeaders(policy, request.headers.get("origin"));
  if (Object.keys(base).length === 0) return {};
  return {
    ...base,
    "access-control-allow-methods": "GET, POST, PUT, DELETE, OPTIONS",
    "access-control-allow-headers":
      request.headers.get("access-control-request-headers") ?? "authorization, content-type",
    "access-control-max-age": "600",
  };
}
