// The mixed load of bench/cluster-throughput.ts: closed-loop virtual users, each on a kept-alive
// connection through nginx, each going round the same cycle of requests as a signed-in user of the
// web app and the API would, so that every configuration gets the same mix. Plain node:http: it
// costs the load generator far less CPU than fetch, and the generator shares the machine.
import http from "node:http";

export type Kind = "me" | "pending" | "list" | "submit" | "cancel";

/** Reads 9 of 12 (auth/me, pending announcements, the observations page), 2 submissions, 1 cancel of the last one submitted. */
const CYCLE: Kind[] = ["me", "list", "pending", "submit", "me", "pending", "list", "cancel", "me", "pending", "list", "submit"];

export interface LoadUser {
  token: string;
  projectId: string;
  observatoryIds: string[];
}

export interface KindStats {
  count: number;
  latencies: number[];
  /** Cancels refused with 409 because the observation had already moved past where a cancel may take it. */
  refused: number;
  errors: number;
  /** The first few errors, for the report. */
  examples: string[];
}

interface Reply {
  status: number;
  body: string;
}

function requester(address: string, connections: number) {
  const url = new URL(address);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const call = (method: string, path: string, token: string, json?: unknown) =>
    new Promise<Reply>((resolve, reject) => {
      const body = json === undefined ? undefined : JSON.stringify(json);
      const request = http.request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method,
          path,
          headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
          response.on("error", reject);
        },
      );
      request.on("error", reject);
      request.setTimeout(30_000, () => request.destroy(new Error("no answer within 30 s")));
      request.end(body);
    });
  // Kept-alive sockets would hold the process open after the run.
  return Object.assign(call, { close: () => agent.destroy() });
}

const target = { name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "L", exposureSeconds: 1, count: 1, binning: 1 }] };

/**
 * Runs `connections` virtual users until `stop()` resolves; requests answered while `recording()`
 * says so are counted. A virtual user cancels the observation it submitted last.
 */
export async function driveMixedLoad(options: { address: string; users: LoadUser[]; connections: number; recording: () => boolean; until: Promise<void> }) {
  const call = requester(options.address, options.connections);
  const empty = (): KindStats => ({ count: 0, latencies: [], refused: 0, errors: 0, examples: [] });
  const stats: Record<Kind, KindStats> = { me: empty(), pending: empty(), list: empty(), submit: empty(), cancel: empty() };
  let stopped = false;
  void options.until.then(() => (stopped = true));

  const once = async (
    kind: Kind,
    user: LoadUser,
    state: { lastSubmitted?: string; serial: number },
  ): Promise<{ ok: boolean; refused?: boolean; detail?: string }> => {
    let reply: Reply;
    if (kind === "me") reply = await call("GET", "/api/v1/auth/me", user.token);
    else if (kind === "pending") reply = await call("GET", "/api/v1/user/motd/pending", user.token);
    else if (kind === "list") reply = await call("GET", "/observations", user.token);
    else if (kind === "submit") {
      state.serial += 1;
      const observatoryId = user.observatoryIds[state.serial % user.observatoryIds.length]!;
      reply = await call("POST", "/observations", user.token, { name: `Load ${state.serial}`, projectId: user.projectId, observatoryId, targets: [target] });
      if (reply.status === 201) state.lastSubmitted = (JSON.parse(reply.body) as { id: string }).id;
    } else {
      if (!state.lastSubmitted) return { ok: true };
      reply = await call("POST", `/observations/${state.lastSubmitted}/cancel`, user.token);
      state.lastSubmitted = undefined;
      if (reply.status === 409) return { ok: false, refused: true };
    }
    return reply.status >= 200 && reply.status < 300 ? { ok: true } : { ok: false, detail: `${kind} ${reply.status} ${reply.body.slice(0, 200)}` };
  };

  const virtualUser = async (index: number) => {
    const user = options.users[index % options.users.length]!;
    const state = { serial: index * 1_000_000 } as { lastSubmitted?: string; serial: number };
    for (let step = index; !stopped; step += 1) {
      const kind = CYCLE[step % CYCLE.length]!;
      const started = performance.now();
      const outcome = await once(kind, user, state).catch((error: Error) => ({ ok: false, refused: false, detail: `${kind} ${error.message}` }));
      if (!options.recording()) continue;
      const entry = stats[kind];
      entry.count += 1;
      entry.latencies.push(performance.now() - started);
      if (outcome.refused) entry.refused += 1;
      else if (!outcome.ok) {
        entry.errors += 1;
        if (entry.examples.length < 3 && outcome.detail) entry.examples.push(outcome.detail);
      }
    }
  };
  await Promise.all(Array.from({ length: options.connections }, (_, index) => virtualUser(index)));
  call.close();
  return stats;
}
