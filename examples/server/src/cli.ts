import { createInterface } from "node:readline";
import { runCli } from "./cli-commands.js";

process.exitCode = await runCli(process.argv.slice(2), process.env, {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  isTTY: process.stderr.isTTY === true,
  readStdin: async () => {
    let text = "";
    for await (const chunk of process.stdin) text += chunk;
    return text;
  },
  ...(process.stdin.isTTY ? { promptHidden } : {}),
});

/** Reads a line from the terminal, echoing nothing of it (for passwords). */
async function promptHidden(question: string): Promise<string> {
  process.stderr.write(question);
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  // readline echoes what is typed through this method; muting it hides the password.
  (rl as unknown as { _writeToOutput: (text: string) => void })._writeToOutput = () => {};
  try {
    return await new Promise<string>((resolve) => rl.question("", resolve));
  } finally {
    rl.close();
    process.stderr.write("\n");
  }
}
