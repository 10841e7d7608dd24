import { type CliIo, runCli } from "../../src/cli-commands.js";

/** What a CLI run printed and its exit code. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI in-process on `env`, capturing what it prints. `io` adds the rest of a terminal
 * (`isTTY`, `readStdin`, `promptHidden`) where a test needs it.
 */
export async function runCliCapturing(
  argv: string[],
  env: Record<string, string>,
  io: Omit<CliIo, "out" | "err"> = {},
): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, env, {
    ...io,
    out: (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}
