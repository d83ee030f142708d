// `pnpm cluster`: Meridian as an operator with a growing network runs it, on this machine's
// loopback. nginx balances HTTP and both WebSocket paths over two server processes; two worker
// processes run the jobs; PostgreSQL (Debian's, 15 or newer) is an external server; the S3-protocol
// store runs beside them. What is missing is installed with apt-get (as root). Every process gets a
// free port; the address is printed; Ctrl-C stops everything and removes its folder.
//   pnpm cluster [--servers 2] [--workers 2] [--keep]   (--keep leaves the folder, with every log)
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { databaseConnectionBudget, loadEnv } from "@meridian/config";
import { startEmbeddedS3 } from "@meridian/db";
import { freePort } from "./free-port";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "..");
const option = (name: string, fallback: number) => {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
};
const SERVERS = option("servers", 2);
const WORKERS = option("workers", 2);
const keep = process.argv.includes("--keep");
const asRoot = process.getuid?.() === 0;
const MAX_CONNECTIONS = 100;
/** PostgreSQL keeps 3 for superusers (superuser_reserved_connections). */
const SUPERUSER_RESERVED = 3;

/**
 * The most connections each kind of process opens, with the settings they will read (the
 * operator's environment included): a cluster that could exceed max_connections, with room for
 * a `pnpm admin` command beside it, does not start.
 */
function connectionBudget() {
  const env = loadEnv({ ...process.env, DATABASE_URL: undefined });
  const headroom = SUPERUSER_RESERVED + databaseConnectionBudget(env, "admin").total;
  const server = databaseConnectionBudget(env, "server").total;
  const worker = databaseConnectionBudget(env, "worker").total;
  const total = SERVERS * server + WORKERS * worker;
  if (total + headroom > MAX_CONNECTIONS)
    throw new Error(
      `${SERVERS} servers × ${server} and ${WORKERS} workers × ${worker} PostgreSQL connections (${total}, and ${headroom} kept free) ` +
        `exceed max_connections ${MAX_CONNECTIONS}: lower DATABASE_POOL_SIZE, WORKER_DATABASE_POOL_SIZE or JOBS_DATABASE_POOL_SIZE`,
    );
  return { server, worker, total, maxConnections: MAX_CONNECTIONS };
}

/** Debian's PostgreSQL binaries, 15 or newer, newest first. */
function postgresBin(): string | undefined {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .map(Number)
    .filter((version) => version >= 15 && existsSync(path.join(base, String(version), "bin/initdb")))
    .sort((a, b) => b - a);
  return versions.length > 0 ? path.join(base, String(versions[0]), "bin") : undefined;
}

async function ensurePackages() {
  const missing = [...(existsSync("/usr/sbin/nginx") ? [] : ["nginx-light"]), ...(postgresBin() ? [] : ["postgresql"])];
  if (missing.length === 0) return;
  if (!asRoot) throw new Error(`missing ${missing.join(" and ")}: run as root, or install them first (sudo apt-get install -y ${missing.join(" ")})`);
  console.log(`installing ${missing.join(", ")} with apt-get…`);
  await run("apt-get", ["install", "-y", "--no-install-recommends", ...missing], { env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } }).catch(
    async () => {
      await run("apt-get", ["update"]);
      await run("apt-get", ["install", "-y", "--no-install-recommends", ...missing], { env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
    },
  );
}

interface Started {
  stop(): Promise<void>;
}
const started: Started[] = [];

async function startPostgres(dir: string): Promise<string> {
  const bin = postgresBin()!;
  const data = path.join(dir, "postgres");
  const exec = (command: string, args: string[]) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", path.join(bin, command), ...args]) : run(path.join(bin, command), args);
  await fs.mkdir(data, { recursive: true });
  // PostgreSQL refuses to run as root: as root, the data folder belongs to the `postgres` user.
  if (asRoot) await run("chown", ["-R", "postgres", dir]);
  const password = randomBytes(12).toString("hex");
  const passwordFile = path.join(dir, "postgres.password");
  await fs.writeFile(passwordFile, password, { mode: 0o600 });
  if (asRoot) await run("chown", ["postgres", passwordFile]);
  // Unicode case folding for lower(), ILIKE and the trigram index, as the embedded cluster has (C alone folds only ASCII).
  await exec("initdb", ["-D", data, "-U", "meridian", "--pwfile", passwordFile, "--auth=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8"]);
  const port = await freePort();
  // PostgreSQL's default of 100 connections; connectionBudget() checks that the processes fit.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=${MAX_CONNECTIONS}`;
  await exec("pg_ctl", ["-D", data, "-o", options, "-l", path.join(dir, "postgres.log"), "-w", "start"]);
  started.push({ stop: () => exec("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]).then(() => undefined) });
  return `postgres://meridian:${password}@127.0.0.1:${port}/postgres`;
}

function nginxConfig(options: { dir: string; port: number; servers: number[] }) {
  const { dir, port, servers } = options;
  return `pid ${dir}/nginx.pid;
error_log ${dir}/nginx-error.log warn;
worker_processes 1;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/nginx-body;
  proxy_temp_path ${dir}/nginx-proxy;
  fastcgi_temp_path ${dir}/nginx-fastcgi;
  uwsgi_temp_path ${dir}/nginx-uwsgi;
  scgi_temp_path ${dir}/nginx-scgi;
  # No stickiness anywhere: servers share everything through PostgreSQL (LISTEN/NOTIFY carries
  # realtime events to whichever server holds a socket), so any request or WebSocket may go to any.
  upstream meridian {
    least_conn;
    # A server that refused a connection is left out for a second, then tried again: on loopback a refusal
    # costs nothing (the request goes to the next), and a restarted server takes traffic a second after it
    # listens rather than up to five (the topology check's restart figure).
${servers.map((serverPort) => `    server 127.0.0.1:${serverPort} max_fails=1 fail_timeout=1s;`).join("\n")}
    keepalive 32;
    # Idle connections to a server are dropped before Node's own 5 s keep-alive timeout drops them:
    # otherwise nginx may send a request down a connection the server is closing, and a POST (which
    # nginx never retries) answers 502.
    keepalive_timeout 4s;
  }
  map $http_upgrade $connection_upgrade { default upgrade; "" ""; }
  server {
    listen 127.0.0.1:${port};
    # Uploads stream through (the servers enforce MAX_UPLOAD_BYTES); answers are not buffered.
    client_max_body_size 0;
    proxy_request_buffering off;
    proxy_buffering off;
    location / {
      proxy_pass http://meridian;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_set_header X-Forwarded-Proto $scheme;
      # WebSockets stay open through quiet hours; heartbeats and pings keep them alive.
      proxy_read_timeout 1h;
      proxy_send_timeout 1h;
      # A server that died: the next one takes the request (safe: a refused connection did nothing).
      proxy_next_upstream error timeout;
    }
  }
}
`;
}

function spawnMeridian(options: { name: string; entry: string; env: Record<string, string>; dir: string }): ChildProcess {
  const log = path.join(options.dir, `${options.name}.log`);
  const child = spawn(process.execPath, ["--import", "tsx", options.entry], {
    cwd: root,
    env: { ...process.env, ...options.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  void fs.open(log, "a").then((file) => {
    const stream = file.createWriteStream();
    child.stdout?.pipe(stream);
    child.stderr?.pipe(stream);
  });
  started.push({
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 15_000).unref();
      }),
  });
  return child;
}

/** Polls `probe` every 250 ms until it says yes; after 3 minutes, fails naming `what`. */
async function pollUntil(what: string, probe: () => Promise<boolean>) {
  const deadline = Date.now() + 180_000;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within 3 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const waitForReady = (url: string, what: string) => pollUntil(`${what} becoming ready at ${url}`, async () => (await fetch(url)).ok);

/** Until the servers' health counts every worker as running (each writes a heartbeat once it takes jobs). */
const waitForWorkers = (healthUrl: string, count: number) =>
  pollUntil(`${count} workers starting`, async () => {
    const health = (await (await fetch(healthUrl)).json()) as { checks?: { worker?: { workers?: number } } };
    return (health.checks?.worker?.workers ?? 0) >= count;
  });

let stopping = false;
async function stopAll(dir: string | undefined, code: number) {
  if (stopping) return;
  stopping = true;
  console.log("\nstopping the cluster…");
  // Newest first: nginx, workers and servers, then the S3 store and PostgreSQL.
  for (const part of started.reverse()) await part.stop().catch((error: unknown) => console.error(String(error)));
  if (dir && !keep) await fs.rm(dir, { recursive: true, force: true });
  else if (dir) console.log(`logs and data kept in ${dir}`);
  process.exit(code);
}

async function main() {
  let budget: ReturnType<typeof connectionBudget>;
  try {
    budget = connectionBudget();
  } catch (error) {
    // Nothing started yet: say why, without a stack, and exit as for bad usage.
    console.error(`the cluster was not started: ${(error as Error).message}`);
    process.exit(2);
  }
  await ensurePackages();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-cluster-"));
  process.once("SIGINT", () => void stopAll(dir, 0));
  process.once("SIGTERM", () => void stopAll(dir, 0));
  try {
    // The S3 store starts while initdb and PostgreSQL's start (other processes' work) run.
    const [postgresStart, s3Start] = await Promise.allSettled([startPostgres(dir), startEmbeddedS3({ directory: path.join(dir, "objects") })]);
    if (s3Start.status === "fulfilled") started.push({ stop: () => s3Start.value.stop() });
    if (postgresStart.status === "rejected") throw postgresStart.reason;
    if (s3Start.status === "rejected") throw s3Start.reason;
    const databaseUrl = postgresStart.value;
    const s3 = s3Start.value;
    const proxyPort = await freePort();
    const address = `http://127.0.0.1:${proxyPort}`;
    const shared = {
      DATABASE_URL: databaseUrl,
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      // Every process must read the organizations' storage secrets the same way.
      SECRETS_KEY: randomBytes(32).toString("hex"),
      // Links and the same-origin rule are the balancer's address, and the client address comes from it.
      PUBLIC_URL: address,
      TRUST_PROXY: "true",
      DATA_DIR: path.join(dir, "data"),
    };
    const serverPorts: number[] = [];
    const processes: Array<{ name: string; role: "server" | "worker"; pid: number | undefined; port?: number }> = [];
    const startServer = async (index: number) => {
      const port = await freePort();
      serverPorts.push(port);
      const server = spawnMeridian({
        name: `server-${index}`,
        entry: "apps/server/src/main.ts",
        dir,
        env: { ...shared, MERIDIAN_ROLE: "server", HOST: "127.0.0.1", PORT: String(port), SERVED_BY: `server-${index}` },
      });
      processes.push({ name: `server-${index}`, role: "server", pid: server.pid, port });
      return () => waitForReady(`http://127.0.0.1:${port}/api/health/ready`, `server-${index}`);
    };
    // The first server alone: it applies the migrations, and a clean first start announces the cluster once. Then the
    // other servers and the workers start together, each on a migrated database.
    await (
      await startServer(1)
    )();
    const othersReady: Array<() => Promise<void>> = [];
    for (let index = 2; index <= SERVERS; index += 1) othersReady.push(await startServer(index));
    for (let index = 1; index <= WORKERS; index += 1) {
      const worker = spawnMeridian({ name: `worker-${index}`, entry: "apps/worker/src/main.ts", dir, env: { ...shared, SERVED_BY: `worker-${index}` } });
      processes.push({ name: `worker-${index}`, role: "worker", pid: worker.pid });
    }
    await Promise.all([...othersReady.map((ready) => ready()), waitForWorkers(`http://127.0.0.1:${serverPorts[0]}/api/health`, WORKERS)]);
    await fs.writeFile(path.join(dir, "nginx.conf"), nginxConfig({ dir, port: proxyPort, servers: serverPorts }));
    const nginx = spawn("/usr/sbin/nginx", ["-c", path.join(dir, "nginx.conf"), "-p", dir, "-g", "daemon off;"], { stdio: "inherit" });
    started.push({
      stop: () =>
        new Promise<void>((resolve) => {
          if (nginx.exitCode !== null || nginx.signalCode !== null) return resolve();
          nginx.once("exit", () => resolve());
          nginx.kill("SIGQUIT");
        }),
    });
    await waitForReady(`${address}/api/health/ready`, "nginx");
    // For tools and tests that act on the parts (kill one, start one again with the same settings): owner-only, it holds secrets.
    await fs.writeFile(path.join(dir, "cluster.json"), JSON.stringify({ address, env: shared, processes, connectionBudget: budget }, null, 2), { mode: 0o600 });
    console.log(
      [
        `Meridian cluster: ${address}`,
        `  nginx 127.0.0.1:${proxyPort} → servers ${serverPorts.map((port, index) => `server-${index + 1} 127.0.0.1:${port}`).join(", ")}`,
        `  workers: ${WORKERS}; PostgreSQL ${path.basename(path.dirname(postgresBin()!))} and the S3 store ${s3.endpoint}`,
        `  PostgreSQL connections at most ${budget.total} of ${budget.maxConnections} (server ${budget.server} each, worker ${budget.worker} each)`,
        `  logs in ${dir}; Ctrl-C stops everything`,
      ].join("\n"),
    );
  } catch (error) {
    console.error(`the cluster did not start: ${(error as Error).message}`);
    await stopAll(dir, 1);
  }
}

await main();
