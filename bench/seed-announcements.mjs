// Seed for the benchmarks of hot reads (motd-pending.mjs, hot-reads.mjs), through the public API.

/** The server admin every seeded Meridian is started with (ADMIN_EMAIL / ADMIN_PASSWORD). */
export const ADMIN = { email: "bench-admin@example.com", password: "bench-admin-password-1" };

export async function call(baseUrl, method, route, { token, body, expect } = {}) {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  if (expect !== undefined && response.status !== expect)
    throw new Error(`${method} ${route} answered ${response.status} (expected ${expect}): ${text.slice(0, 500)}`);
  return { status: response.status, body: parsed, text };
}

/** One user, the admin, five system announcements: 3 pending for the user, 1 acknowledged, 1 cancelled. */
export async function seedPendingAnnouncements(baseUrl) {
  const signup = await call(baseUrl, "POST", "/api/v1/auth/signup", {
    body: { email: `bench-${Date.now()}@example.com`, password: "bench-password-1", name: "Bench User" },
    expect: 201,
  });
  const userToken = signup.body.token;
  const admin = await call(baseUrl, "POST", "/api/v1/auth/login", { body: ADMIN, expect: 200 });
  const adminToken = admin.body.token;
  if (!userToken || !adminToken) throw new Error("sign-up or admin login returned no token");

  const announcement = (title, severity) => ({
    title,
    message:
      `${title}. The archive is offline on Saturday from 08:00 to 10:00 UTC for a database ` + `upgrade; observations scheduled in that window run afterwards.`,
    severity,
    deliveryType: "message",
    targets: { users: { all: true } },
  });
  const created = [];
  for (const [title, severity] of [
    ["Planned downtime", "warning"],
    ["Dome safety notice", "critical"],
    ["New filter wheel available", "info"],
    ["Acknowledged notice", "info"],
    ["Cancelled notice", "warning"],
  ]) {
    const response = await call(baseUrl, "POST", "/api/v1/system/motd", { token: adminToken, body: announcement(title, severity), expect: 201 });
    created.push(response.body);
  }
  await call(baseUrl, "POST", `/api/v1/system/motd/${created[3].id}/acknowledge`, { token: userToken, expect: 200 });
  await call(baseUrl, "DELETE", `/api/v1/system/motd/${created[4].id}`, { token: adminToken, body: { reason: "Sent by mistake" }, expect: 200 });

  const pending = await call(baseUrl, "GET", "/api/v1/user/motd/pending", { token: userToken, expect: 200 });
  const expected = new Set(created.slice(0, 3).map((item) => item.id));
  const got = pending.body.items?.map((item) => item.id) ?? [];
  if (got.length !== 3 || !got.every((id) => expected.has(id)))
    throw new Error(`pending answered ${JSON.stringify(got)}, expected the three ids ${[...expected].join(", ")}`);
  return { userToken, pendingCount: got.length };
}
