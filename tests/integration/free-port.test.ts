import { readFileSync } from "node:fs";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { freePort } from "../../scripts/free-port";

const ephemeralStart = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);

const listen = (port: number) =>
  new Promise<net.Server>((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });

describe("freePort", () => {
  it("hands out ports below the kernel's ephemeral range, never the same one twice, each one free to listen on", async () => {
    const ports = [];
    for (let i = 0; i < 50; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) expect(port).toBeLessThan(ephemeralStart);
    const servers = await Promise.all(ports.map(listen));
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });
});
