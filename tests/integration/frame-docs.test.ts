import { frameRejections, frameStatuses, solveFailures } from "@meridian/rules/frames";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/test-server";

// The published documents describe a frame whole: every field of `file.frame` (OpenAPI, and the
// AsyncAPI document plugins read), its enums, and the header cards a plugin's FITS should carry.
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ MERIDIAN_ROLE: "server" });
});
afterAll(() => server?.stop());

type Schema = {
  $ref?: string;
  description?: string;
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
};

/** Every property under a schema, by path, with the components its $refs name followed (each once). */
function propertiesOf(schema: Schema, components: Record<string, Schema>, prefix = "", seen = new Set<string>()): Array<[string, Schema]> {
  const resolved = resolve(schema, components, seen);
  const found: Array<[string, Schema]> = [];
  for (const [name, property] of Object.entries(resolved.properties ?? {})) {
    const path = `${prefix}${name}`;
    found.push([path, property]);
    found.push(...propertiesOf(property, components, `${path}.`, seen));
  }
  return found;
}

function resolve(schema: Schema, components: Record<string, Schema>, seen: Set<string>): Schema {
  if (schema.$ref) {
    const name = schema.$ref.split("/").at(-1)!;
    if (seen.has(name)) return {};
    seen.add(name);
    return resolve(components[name]!, components, seen);
  }
  const object = [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].find((option) => option.properties || option.$ref);
  return object && object !== schema ? resolve(object, components, seen) : schema;
}

/** A property's description: its own, or that of the component it names. */
const descriptionOf = (schema: Schema, components: Record<string, Schema>): string | undefined =>
  schema.description ?? (schema.$ref ? components[schema.$ref.split("/").at(-1)!]?.description : undefined);

const enumOf = (schema: Schema): unknown[] => [
  ...(schema.enum ?? []),
  ...(schema.items ? enumOf(schema.items) : []),
  ...[...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].flatMap(enumOf),
];

function expectFrameDescribed(components: Record<string, Schema>) {
  const frame = components.Frame!;
  const properties = propertiesOf(frame, components);
  expect(properties.map(([path]) => path)).toEqual(
    expect.arrayContaining([
      "status",
      "failure",
      "header.object",
      "header.dateObs",
      "header.exposureSeconds",
      "header.filter",
      "header.binning",
      "header.ra",
      "header.dec",
      "header.imageType",
      "targetName",
      "stars",
      "fwhmArcsec",
      "hfrArcsec",
      "eccentricity",
      "backgroundAdu",
      "solution.ra",
      "solution.pixelScaleArcsec",
      "solution.rotationDeg",
      "solveFailure",
      "pointingOffsetArcsec",
      "grade",
      "rejectedFor",
      "analysedAt",
    ]),
  );
  for (const [path, property] of properties) expect(descriptionOf(property, components), `frame.${path} has a description`).toBeTruthy();
  const shape = Object.fromEntries(properties);
  expect(enumOf(shape.status!).sort()).toEqual([...frameStatuses].sort());
  expect(enumOf(shape.solveFailure!).filter(Boolean).sort()).toEqual([...solveFailures].sort());
  expect(enumOf(shape.grade!).filter(Boolean).sort()).toEqual(["accepted", "rejected"]);
  expect(enumOf(shape.rejectedFor!).sort()).toEqual([...frameRejections].sort());
}

describe("the frame, documented", () => {
  it("is described field by field in the OpenAPI document, with its enums, on the file and on POST /files/{id}/analyse", async () => {
    const document = (await (await server.request("/api/openapi.json")).json()) as {
      paths: Record<string, Record<string, { description?: string }>>;
      components: { schemas: Record<string, Schema> };
    };
    expectFrameDescribed(document.components.schemas);
    expect(document.components.schemas.File!.properties!.frame).toBeDefined();
    expect(document.paths["/files/{id}/analyse"]?.post?.description).toContain("queued");
  });

  it("is in the AsyncAPI document plugins read, with what the server does to an uploaded FITS image", async () => {
    const document = (await (await server.request("/api/asyncapi.json")).json()) as {
      info: { description: string };
      components: { schemas: Record<string, Schema> };
    };
    expectFrameDescribed(document.components.schemas);
    expect(document.components.schemas.File!.properties!.frame!.$ref).toBe("#/components/schemas/Frame");
    for (const card of ["OBJECT", "DATE-OBS", "EXPTIME", "EXPOSURE", "FILTER", "XBINNING", "RA", "DEC", "OBJCTRA", "OBJCTDEC", "IMAGETYP"])
      expect(document.info.description, card).toContain(card);
    expect(document.info.description).toContain("first extension");
    expect(document.info.description).toContain("Previews are made by the server");
  });

  it("tells plugin authors on the protocol page which header cards Meridian reads, where, what happens without them, and who makes previews", async () => {
    const html = await (await server.request("/api/docs/observatory")).text();
    const table = html.slice(html.indexOf('<table aria-label="FITS header cards Meridian reads">'), html.indexOf("</table>"));
    for (const card of ["OBJECT", "DATE-OBS", "EXPTIME, else EXPOSURE", "FILTER", "XBINNING", "OBJCTRA and OBJCTDEC", "IMAGETYP"])
      expect(table, card).toContain(card);
    expect(table).toContain("the solve is blind");
    expect(html).toContain("the primary HDU when it holds the 2-D image, else the first IMAGE extension");
    expect(html).toContain("Previews are made by the server");
  });
});
