// Next.js configuration for the Quire example. See README.md § How the workspace packages are built.

/** @type {import("next").NextConfig} */
const nextConfig = {
  // Serve the app below a path (say SITE_PATH_PREFIX=/blog, set for `next build` and `next start`):
  // src/lib/quire.ts gives Quire the same prefix. Unset, the app sits at the root.
  ...(process.env.SITE_PATH_PREFIX ? { basePath: process.env.SITE_PATH_PREFIX } : {}),
  // better-sqlite3 is a native module: Node.js must `require` it at run time, not webpack bundle it.
  // Next.js 15's built-in list already leaves better-sqlite3 and pg external; naming it here keeps
  // that true whatever that list holds, and is where another native driver would go.
  serverExternalPackages: ["better-sqlite3"],
  // The @quire/* workspace packages are TypeScript sources (their "source" export condition);
  // Next.js compiles them with the app instead of loading a prebuilt dist/.
  transpilePackages: ["@quire/core", "@quire/http-adapter", "@quire/storage-fs"],
  webpack(config) {
    // Resolve @quire/* through their "source" condition (src/*.ts) …
    config.resolve.conditionNames = ["source", ...(config.resolve.conditionNames ?? ["..."])];
    // … whose imports name the compiled file (`./db/open.js`) as Node.js ESM requires.
    config.resolve.extensionAlias = { ".js": [".ts", ".js"], ...config.resolve.extensionAlias };
    return config;
  },
  // The repository's `pnpm typecheck` checks these files with the workspace's settings; the build
  // skips its own pass (it would resolve @quire/* types from a dist/ that a clean clone lacks).
  typescript: { ignoreBuildErrors: true },
  eslint: { ignoreDuringBuilds: true },
};

export default nextConfig;
