import { spawn } from "node:child_process";

/** util-linux's, in every Debian: by its path, as the tools' own names are looked up only in the fixed PATH below. */
const PRLIMIT = "/usr/bin/prlimit";
/** What a tool printed that is kept, at most: enough for a reason or a log line. */
const KEPT_OUTPUT = 64 * 1024;

export class ToolFailure extends Error {
  constructor(
    message: string,
    readonly kind: "missing" | "timeout" | "exit",
  ) {
    super(message);
  }
}

/**
 * Runs one of the field's tools as a child process, never through a shell: the arguments go to
 * the program as they are. `prlimit` caps its CPU time (inherited by what it starts, such as
 * solve-field's astrometry-engine), and the wall-time limit is `signal`: when it aborts, the
 * tool's whole process group is killed. Resolves with what it printed when it exits 0.
 */
export function runTool(options: {
  command: string;
  args: string[];
  cwd: string;
  cpuSeconds: number;
  signal: AbortSignal;
}): Promise<{ stdout: string; stderr: string }> {
  const { command, args, cwd, signal } = options;
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new ToolFailure(`${command} was not started: the time was up`, "timeout"));
    const child = spawn(PRLIMIT, [`--cpu=${Math.max(1, Math.ceil(options.cpuSeconds))}`, "--", command, ...args], {
      cwd,
      // Its own process group, so that the tools it starts are killed with it.
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      // Nothing of the server's environment: the tools Debian installs, a home and a temporary folder of their own.
      env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: cwd, TMPDIR: cwd, LANG: "C" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout = (stdout + chunk.toString("utf8")).slice(-KEPT_OUTPUT)));
    child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-KEPT_OUTPUT)));
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    };
    signal.addEventListener("abort", killGroup, { once: true });
    child.on("error", (error: NodeJS.ErrnoException) => {
      signal.removeEventListener("abort", killGroup);
      reject(new ToolFailure(error.code === "ENOENT" ? "prlimit is not installed (util-linux)" : `${command} could not start: ${error.message}`, "missing"));
    });
    child.on("close", (code, signalName) => {
      signal.removeEventListener("abort", killGroup);
      // Whatever it started and left behind goes with it.
      killGroup();
      if (signal.aborted) return reject(new ToolFailure(`${command} was stopped: the time was up`, "timeout"));
      if (code === 0) return resolve({ stdout, stderr });
      // prlimit answers 127 or 126 when the program itself cannot be run.
      if (code === 127 || code === 126 || /failed to execute/.test(stderr))
        return reject(new ToolFailure(`${command} is not installed or cannot be run`, "missing"));
      if (signalName === "SIGXCPU" || signalName === "SIGKILL")
        return reject(new ToolFailure(`${command} used up its CPU time (${options.cpuSeconds} s)`, "timeout"));
      reject(new ToolFailure(`${command} ended with code ${code ?? signalName}: ${stderr.trim().split("\n").slice(-3).join(" ").slice(0, 300)}`, "exit"));
    });
  });
}
