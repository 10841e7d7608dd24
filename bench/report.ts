/**
 * What every benchmark prints and keeps: its machine, and its output, which `save()` writes into
 * bench/README.md § Latest runs as the last complete run of that benchmark (`--record=off`, or
 * `QUIRE_BENCH_RECORD=off`, leaves the file alone, for trial runs).
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { fileURLToPath } from "node:url";

const readme = fileURLToPath(new URL("./README.md", import.meta.url));
const section = "## Latest runs";

/** This machine, as every benchmark prints it first: Node, cores, memory, load. */
export function machine(): string {
  const cores = cpus();
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");
  return `Machine: Node ${process.version}, ${cores.length} × ${cores[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, load average ${load}`;
}

/** A benchmark's output: `log` prints a line and keeps it; `save` records the run in bench/README.md. */
export interface BenchReport {
  log(line: string): void;
  save(): void;
}

/**
 * The report of `pnpm <script>` (`bench:write`). Its first line is the machine, printed before the
 * first line logged (a benchmark's child processes, which log nothing, print nothing). Only a run
 * that reaches `save()` is recorded: a failed run leaves the last good one in place.
 */
export function benchReport(script: string): BenchReport {
  const lines: string[] = [];
  const log = (line: string) => {
    if (lines.length === 0) {
      const first = machine();
      console.log(first);
      lines.push(first);
    }
    console.log(line);
    lines.push(line);
  };
  return {
    log,
    save() {
      if (!recording()) return;
      const command = ["pnpm", script, ...process.argv.slice(2)].join(" ");
      const when = `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`;
      writeRun(script, [
        `### \`${command}\``,
        "",
        `Written by the benchmark at ${when}:`,
        "",
        "```text",
        ...lines,
        "```",
      ]);
      console.log(`\nRecorded in bench/README.md § Latest runs (pass --record=off to leave it alone).`);
    },
  };
}

function recording(): boolean {
  return !process.argv.includes("--record=off") && process.env.QUIRE_BENCH_RECORD !== "off";
}

/** Puts the run between its markers, in place of the last one, or at the end of § Latest runs. */
function writeRun(script: string, body: string[]): void {
  const start = `<!-- latest-run ${script} -->`;
  const end = `<!-- /latest-run ${script} -->`;
  const block = [start, ...body, end].join("\n");
  let text = readFileSync(readme, "utf8");
  if (!text.includes(`\n${section}\n`)) {
    text = `${text.trimEnd()}\n\n${section}\n\nEach benchmark writes its last complete run here.\n`;
  }
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  text =
    from >= 0 && to > from
      ? text.slice(0, from) + block + text.slice(to + end.length)
      : `${text.trimEnd()}\n\n${block}\n`;
  // A whole new file renamed into place: an interrupted write never leaves half a README.
  const temporary = `${readme}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, readme);
}
