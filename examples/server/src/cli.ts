import { runCli } from "./cli-commands.js";

process.exitCode = await runCli(process.argv.slice(2), process.env, {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  isTTY: process.stderr.isTTY === true,
});
