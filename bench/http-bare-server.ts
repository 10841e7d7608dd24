/**
 * The reference line of `pnpm bench:http`: a bare node:http server that answers every request with
 * the same bytes from memory (the Thread list page the engine served, with its content type), in
 * `WORKERS` processes sharing the port like the reference server's. Prints `listening on PORT`.
 * Environment: BODY_FILE, CONTENT_TYPE, WORKERS (default 1).
 */
import cluster from "node:cluster";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const workers = Number(process.env.WORKERS ?? 1);

if (cluster.isPrimary && workers > 1) {
  let listening = 0;
  for (let i = 0; i < workers; i++) {
    cluster.fork().on("message", (message: { port?: number }) => {
      listening++;
      if (listening === workers) process.stdout.write(`listening on ${message.port}\n`);
    });
  }
  process.on("SIGTERM", () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
    process.exit(0);
  });
} else {
  const body = readFileSync(process.env.BODY_FILE as string);
  const headers = {
    "content-type": process.env.CONTENT_TYPE ?? "application/json",
    "content-length": String(body.length),
  };
  const server = createServer((_request, response) => {
    response.writeHead(200, headers);
    response.end(body);
  });
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    if (cluster.isWorker) process.send?.({ port });
    else process.stdout.write(`listening on ${port}\n`);
  });
  process.on("SIGTERM", () => process.exit(0));
}
