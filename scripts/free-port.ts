import { readFileSync } from "node:fs";
import net from "node:net";

// A port handed to a process stays unbound until the process listens, and a test or the cluster that
// restarts a process on the same port (nginx names it) leaves it unbound in between. Inside the kernel's
// ephemeral range any listen(0) or outgoing connection elsewhere may take it meanwhile (CI saw
// EADDRINUSE that way), so ports come from below that range, where the kernel hands out nothing. Each
// vitest worker draws from its own slice so that files running side by side never draw the same port,
// and one process never hands out a port twice.
const FIRST_PORT = 10_000;
const SLICE_SIZE = 2_000;
const handedOut = new Set<number>();

function ephemeralRangeStart(): number {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}

function slice(): { first: number; size: number } {
  const slices = Math.floor((ephemeralRangeStart() - FIRST_PORT) / SLICE_SIZE);
  if (slices < 1) return { first: FIRST_PORT, size: 0 };
  const index = Number(process.env.VITEST_POOL_ID ?? 0) % slices;
  return { first: FIRST_PORT + index * SLICE_SIZE, size: SLICE_SIZE };
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => server.close(() => resolve(true)));
  });
}

function kernelChosenPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function freePort(): Promise<number> {
  const { first, size } = slice();
  for (let attempt = 0; attempt < size; attempt++) {
    const port = first + Math.floor(Math.random() * size);
    if (handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
  return kernelChosenPort();
}
