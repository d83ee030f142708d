// The Dropbox stand-in of the delivery benchmark: its token, upload, upload-session and metadata
// endpoints on 127.0.0.1, counting the bytes it receives and keeping none of them, so the receiver
// costs the same whoever sends. Prints "sink listening <port>" when ready.
import http from "node:http";

const sessions = new Map();
let nextSession = 1;
const json = (response, status, body) => response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));

http
  .createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://sink").pathname;
    let bytes = 0;
    request.on("data", (chunk) => (bytes += chunk.length));
    request.on("end", () => {
      const arg = JSON.parse(String(request.headers["dropbox-api-arg"] ?? "{}"));
      switch (path) {
        case "/oauth2/token":
          return json(response, 200, { access_token: "sink-token", expires_in: 14_400 });
        case "/2/files/upload":
          return json(response, 200, { path_display: arg.path, size: bytes });
        case "/2/files/upload_session/start": {
          const id = `session-${nextSession++}`;
          sessions.set(id, bytes);
          return json(response, 200, { session_id: id });
        }
        case "/2/files/upload_session/append_v2":
        case "/2/files/upload_session/finish": {
          const id = arg.cursor?.session_id;
          if (!sessions.has(id) || sessions.get(id) !== arg.cursor?.offset) return json(response, 409, { error_summary: "incorrect_offset/" });
          sessions.set(id, sessions.get(id) + bytes);
          if (path.endsWith("append_v2")) return json(response, 200, null);
          const size = sessions.get(id);
          sessions.delete(id);
          return json(response, 200, { path_display: arg.commit?.path, size });
        }
        case "/2/files/get_metadata":
          return json(response, 409, { error_summary: "path/not_found/" });
        default:
          return json(response, 404, { error_summary: "unknown endpoint" });
      }
    });
  })
  .listen(Number(process.env.PORT), "127.0.0.1", () => console.log(`sink listening ${process.env.PORT}`));
