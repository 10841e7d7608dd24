import type { Engine, Storage } from "@quire/core";
import { createFileHandler, createHandler } from "@quire/http-adapter";
import express, { type Express } from "express";
import { fetchMiddleware } from "./fetch-bridge.js";

/** Options for {@link createApp}. */
export interface AppOptions {
  engine: Engine;
  /** The storage the engine was given; its files are served under `/media`. */
  storage: Storage;
  /** A development token, accepted from loopback addresses only. */
  devApiToken?: string | undefined;
}

/**
 * An existing Express app with Quire mounted beside its own routes: `/api/*` and the health checks
 * go to Quire's Fetch handler, `/media/*` to its file handler, everything else stays the app's.
 */
export function createApp({ engine, storage, devApiToken }: AppOptions): Express {
  const addresses = new WeakMap<Request, string>();
  const quire = createHandler(engine, {
    devApiToken,
    // Only the server knows the peer's address; Quire needs it to accept devApiToken locally.
    clientAddress: (request) => addresses.get(request),
  });
  const files = createFileHandler(storage, { prefix: "/media" });

  const app = express();

  // Quire first, before any body parser (see fetch-bridge.ts). Mounted at /api, Express strips
  // the prefix from req.url; the bridge uses req.originalUrl, so Quire still sees /api/….
  app.use("/api", fetchMiddleware(quire, addresses));
  app.get(["/healthz", "/readyz"], fetchMiddleware(quire, addresses));
  app.use("/media", fetchMiddleware(files));

  // The app's own routes, with their own body parser.
  app.get("/", (_req, res) => {
    res.type("text").send("My Express app, with a Quire blog under /api");
  });
  app.post("/feedback", express.json(), (req, res) => {
    res.status(201).json({ received: req.body });
  });

  return app;
}
