import { filesCollection, observationsCollection } from "@meridian/db";
import { describe, expect, it } from "vitest";
import { jsonApi } from "../support/json-api";
import { fileDocument, observationDocument } from "../support/observation-documents";
import { useObservingSetup } from "../support/observing-hooks";

// The CSV export of a scan's issues, opened by an admin in a spreadsheet. File names come from
// observatories' uploads (any name without slashes or control characters), and issue messages begin with them.
const ADMIN = { email: "integrity-issue-export-admin@example.com", password: "integrity issue export admin password" };
const setup = useObservingSetup(ADMIN, "Exported");
const { scanToEnd } = jsonApi(() => setup.server);

/** RFC 4180 cells of one line (quotes doubled inside quoted cells). */
function cells(line: string): string[] {
  const out: string[] = [];
  let at = 0;
  while (at <= line.length) {
    if (line[at] === '"') {
      let value = "";
      at += 1;
      for (;;) {
        const quote = line.indexOf('"', at);
        value += line.slice(at, quote);
        at = quote + 1;
        if (line[at] === '"') {
          value += '"';
          at += 1;
        } else break;
      }
      out.push(value);
      at += 1;
    } else {
      const comma = line.indexOf(",", at);
      const end = comma === -1 ? line.length : comma;
      out.push(line.slice(at, end));
      at = end + 1;
    }
  }
  return out;
}

describe("issue export as CSV", () => {
  it("never hands a spreadsheet a cell that starts a formula", async () => {
    const { db } = setup.deps();
    const observation = await observationsCollection.insert(
      db,
      observationDocument({ projectId: setup.projectId, observatoryId: setup.observatoryId, ownerId: setup.owner.id }, { name: "Exported" }),
    );
    // A name the upload takes (no slashes or control characters). A record whose object is not in storage:
    // its FILE_MISSING message starts with the file's name.
    await filesCollection.insert(db, fileDocument(observation.id, setup.observatoryId, "=cmd|' -C calc'!A0.fits"));
    const scan = await scanToEnd<{ id: string; status: string }>({ kind: "full", collections: ["files"], checkStorage: true }, setup.adminToken);
    expect(scan.status).toBe("completed");

    const response = await setup.server.request(`/api/v1/admin/integrity/scans/${scan.id}/issues/export?format=csv`, { token: setup.adminToken });
    expect(response.status).toBe(200);
    const lines = (await response.text()).trim().split("\n");
    const rows = lines.slice(1).map(cells);
    expect(rows.some((row) => row.some((cell) => cell.includes("cmd|")))).toBe(true);
    // OWASP CSV injection: a cell beginning with = + - @ (or tab/CR) is run as a formula; such cells must be neutralised.
    const formulas = rows.flat().filter((cell) => /^[=+\-@\t\r]/.test(cell));
    expect(formulas).toEqual([]);
  }, 120_000);
});
