import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { catalogFileSchema, targetCatalogs, type CatalogEntry, type CatalogFile, type TargetCatalog, type TargetKind } from "./catalog-format";
import { nameKey, spellGreek } from "./names";

/**
 * Derives the committed catalog (`catalog.json`) from two npm packages that are development
 * dependencies of this package and never loaded at run time: OpenNGC's database as shipped by
 * `astronomy-oracle` (NGC, IC, Messier and its addendum; CC-BY-SA-4.0) and `d3-celestial`'s star
 * names and Hipparcos positions (BSD-3-Clause). Run `pnpm --filter @meridian/domain build:catalog`;
 * a unit test holds the committed file to what this produces.
 */

interface StarName {
  name?: string;
  bayer?: string;
  flam?: string;
  c?: string;
  hd?: string;
  hip?: string;
}

interface StarFeature {
  id: number | string;
  properties: { mag: number | string };
  geometry: { coordinates: [number, number] };
}

export interface CatalogSources {
  ngcCsv: string;
  addendumCsv: string;
  starNames: Record<string, StarName>;
  stars: { features: StarFeature[] };
  /** `name@version` of each source package, recorded in the file. */
  openNgcPackage: string;
  starsPackage: string;
}

const require = createRequire(import.meta.url);

function packageDir(name: string): { dir: string; version: string } {
  const manifest = require.resolve(`${name}/package.json`);
  return { dir: path.dirname(manifest), version: (JSON.parse(fs.readFileSync(manifest, "utf8")) as { version: string }).version };
}

/** The source files, from the installed development dependencies. */
export function readCatalogSources(): CatalogSources {
  const openNgc = packageDir("astronomy-oracle");
  const celestial = packageDir("d3-celestial");
  const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), "utf8");
  return {
    ngcCsv: read(openNgc.dir, "data/NGC.csv"),
    addendumCsv: read(openNgc.dir, "data/addendum.csv"),
    starNames: JSON.parse(read(celestial.dir, "data/starnames.json")) as Record<string, StarName>,
    // The 14th-magnitude file holds every named star; the brighter files miss some (Kapteyn's Star).
    stars: JSON.parse(read(celestial.dir, "data/stars.14.json")) as { features: StarFeature[] },
    openNgcPackage: `astronomy-oracle@${openNgc.version}`,
    starsPackage: `d3-celestial@${celestial.version}`,
  };
}

/** OpenNGC's semicolon CSV: a header line, fields optionally in double quotes (notes hold semicolons). */
function parseSemicolonCsv(text: string): Record<string, string>[] {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== "");
  const fields = (line: string) => {
    const out: string[] = [];
    let current = "";
    let quoted = false;
    for (let i = 0; i < line.length; i += 1) {
      const char = line[i]!;
      if (quoted && char === '"' && line[i + 1] === '"') {
        current += '"';
        i += 1;
      } else if (char === '"') {
        quoted = !quoted;
      } else if (char === ";" && !quoted) {
        out.push(current);
        current = "";
      } else {
        current += char;
      }
    }
    out.push(current);
    return out;
  };
  const [header, ...rows] = lines.map(fields);
  return rows.map((row) => Object.fromEntries(header!.map((name, index) => [name, (row[index] ?? "").trim()])));
}

const OPEN_NGC_KINDS: Record<string, TargetKind | null> = {
  G: "galaxy",
  GPair: "galaxy_group",
  GTrpl: "galaxy_group",
  GGroup: "galaxy_group",
  OCl: "open_cluster",
  GCl: "globular_cluster",
  "*Ass": "star_association",
  "Cl+N": "nebula",
  PN: "planetary_nebula",
  HII: "nebula",
  EmN: "nebula",
  Neb: "nebula",
  RfN: "nebula",
  DrkN: "dark_nebula",
  SNR: "supernova_remnant",
  Nova: "nova",
  "*": "star",
  "**": "double_star",
  Other: "other",
  // Objects OpenNGC records as not existing have nothing to point a telescope at.
  NonEx: null,
};

const PREFIX_CATALOGS: Record<string, TargetCatalog> = {
  NGC: "NGC",
  IC: "IC",
  M: "Messier",
  B: "Barnard",
  C: "Caldwell",
  Cl: "Collinder",
  ESO: "ESO",
  H: "Harvard",
  HCG: "HCG",
  Mel: "Melotte",
  MWSC: "MWSC",
  PGC: "PGC",
  UGC: "UGC",
};

/** `NGC0224` → `NGC 224`, `IC0080 NED01` → `IC 80 NED01`, `ESO056-115` → `ESO 56-115`, `M040` → `M40`. */
function openNgcDesignation(name: string): { text: string; catalog: TargetCatalog } {
  const match = /^([A-Za-z]+)(\d+)(.*)$/.exec(name);
  const catalog = match ? PREFIX_CATALOGS[match[1]!] : undefined;
  if (!match || !catalog) throw new Error(`OpenNGC name of an unknown form: ${name}`);
  const [, prefix, number, rest] = match;
  return { text: `${prefix}${prefix === "M" ? "" : " "}${Number(number)}${rest}`, catalog };
}

const listOf = (value: string | undefined) =>
  (value ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);

interface Draft {
  designation: string;
  catalog: TargetCatalog;
  kind: TargetKind;
  ra: number;
  dec: number;
  aliases: string[];
}

/**
 * OpenNGC's `hh:mm:ss.ss` and `±dd:mm:ss.s`, read as they are: a few rows write a rounded 60 in the
 * seconds (`+07:12:60.0`), which the user-facing parser rightly refuses but which means the next minute.
 */
function degreesOf(ra: string, dec: string, label: string): { ra: number; dec: number } {
  const sexagesimal = (text: string) => {
    const match = /^([+-]?)(\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)$/.exec(text);
    if (!match) throw new Error(`${label}: unreadable position ${ra} ${dec}`);
    const magnitude = Number(match[2]) + Number(match[3]) / 60 + Number(match[4]) / 3600;
    return match[1] === "-" ? -magnitude : magnitude;
  };
  const position = { ra: sexagesimal(ra) * 15, dec: sexagesimal(dec) };
  if (!(position.ra >= 0 && position.ra < 360 && Math.abs(position.dec) <= 90)) throw new Error(`${label}: position out of range ${ra} ${dec}`);
  return position;
}

function deepSky(sources: CatalogSources, notes: string[]): Draft[] {
  const rows = [...parseSemicolonCsv(sources.ngcCsv), ...parseSemicolonCsv(sources.addendumCsv)];
  const drafts: Draft[] = [];
  const byRowName = new Map<string, Draft>();
  const byMessier = new Map<number, Draft>();
  for (const row of rows) {
    if (row.Type === "Dup") continue;
    if (!(row.Type! in OPEN_NGC_KINDS)) throw new Error(`${row.Name}: unknown OpenNGC type ${row.Type}`);
    const kind = OPEN_NGC_KINDS[row.Type!];
    if (!kind || !row.RA || !row.Dec) continue;
    const own = openNgcDesignation(row.Name!);
    const messier = row.M ? Number(row.M) : null;
    const draft: Draft = {
      designation: messier === null ? own.text : `M${messier}`,
      catalog: messier === null ? own.catalog : "Messier",
      kind,
      ...degreesOf(row.RA, row.Dec, row.Name!),
      aliases: [
        own.text,
        ...listOf(row.NGC).map((number) => `NGC ${number.replace(/^0+(?=\d)/, "")}`),
        ...listOf(row.IC).map((number) => `IC ${number.replace(/^0+(?=\d)/, "")}`),
        ...listOf(row["Common names"]),
      ],
    };
    if (messier !== null) {
      if (byMessier.has(messier)) throw new Error(`M${messier} is given to two objects`);
      byMessier.set(messier, draft);
    }
    byRowName.set(nameKey(own.text), draft);
    drafts.push(draft);
  }
  // A duplicate entry (NGC 651 is NGC 650, M102 is M101 in OpenNGC) is another name of the object it points at.
  let orphans = 0;
  for (const row of rows) {
    if (row.Type !== "Dup") continue;
    const target = row.M
      ? byMessier.get(Number(row.M))
      : row.NGC
        ? byRowName.get(nameKey(`NGC ${listOf(row.NGC)[0]}`))
        : row.IC
          ? byRowName.get(nameKey(`IC ${listOf(row.IC)[0]}`))
          : undefined;
    if (!target) {
      orphans += 1;
      continue;
    }
    target.aliases.push(openNgcDesignation(row.Name!).text, ...listOf(row["Common names"]));
  }
  if (orphans > 0) notes.push(`${orphans} OpenNGC duplicate entries point at objects that do not exist and were left out`);
  return drafts;
}

/** Genitives of the 88 constellations, for `Alpha Lyrae` beside `α Lyr`. */
const GENITIVES: Record<string, string> = {
  And: "Andromedae",
  Ant: "Antliae",
  Aps: "Apodis",
  Aqr: "Aquarii",
  Aql: "Aquilae",
  Ara: "Arae",
  Ari: "Arietis",
  Aur: "Aurigae",
  Boo: "Boötis",
  Cae: "Caeli",
  Cam: "Camelopardalis",
  Cnc: "Cancri",
  CVn: "Canum Venaticorum",
  CMa: "Canis Majoris",
  CMi: "Canis Minoris",
  Cap: "Capricorni",
  Car: "Carinae",
  Cas: "Cassiopeiae",
  Cen: "Centauri",
  Cep: "Cephei",
  Cet: "Ceti",
  Cha: "Chamaeleontis",
  Cir: "Circini",
  Col: "Columbae",
  Com: "Comae Berenices",
  CrA: "Coronae Australis",
  CrB: "Coronae Borealis",
  Crv: "Corvi",
  Crt: "Crateris",
  Cru: "Crucis",
  Cyg: "Cygni",
  Del: "Delphini",
  Dor: "Doradus",
  Dra: "Draconis",
  Equ: "Equulei",
  Eri: "Eridani",
  For: "Fornacis",
  Gem: "Geminorum",
  Gru: "Gruis",
  Her: "Herculis",
  Hor: "Horologii",
  Hya: "Hydrae",
  Hyi: "Hydri",
  Ind: "Indi",
  Lac: "Lacertae",
  Leo: "Leonis",
  LMi: "Leonis Minoris",
  Lep: "Leporis",
  Lib: "Librae",
  Lup: "Lupi",
  Lyn: "Lyncis",
  Lyr: "Lyrae",
  Men: "Mensae",
  Mic: "Microscopii",
  Mon: "Monocerotis",
  Mus: "Muscae",
  Nor: "Normae",
  Oct: "Octantis",
  Oph: "Ophiuchi",
  Ori: "Orionis",
  Pav: "Pavonis",
  Peg: "Pegasi",
  Per: "Persei",
  Phe: "Phoenicis",
  Pic: "Pictoris",
  Psc: "Piscium",
  PsA: "Piscis Austrini",
  Pup: "Puppis",
  Pyx: "Pyxidis",
  Ret: "Reticuli",
  Sge: "Sagittae",
  Sgr: "Sagittarii",
  Sco: "Scorpii",
  Scl: "Sculptoris",
  Sct: "Scuti",
  Ser: "Serpentis",
  Sex: "Sextantis",
  Tau: "Tauri",
  Tel: "Telescopii",
  Tri: "Trianguli",
  TrA: "Trianguli Australis",
  Tuc: "Tucanae",
  UMa: "Ursae Majoris",
  UMi: "Ursae Minoris",
  Vel: "Velorum",
  Vir: "Virginis",
  Vol: "Volantis",
  Vul: "Vulpeculae",
};

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

interface StarDraft {
  hip: string;
  magnitude: number;
  ra: number;
  dec: number;
  /** Every name, the ones that may designate the star first: proper name, Bayer, Flamsteed. */
  names: { text: string; catalog: TargetCatalog | null }[];
}

function stars(sources: CatalogSources, notes: string[]): Draft[] {
  const positions = new Map<string, { ra: number; dec: number; magnitude: number }>();
  for (const feature of sources.stars.features) {
    const [lon, lat] = feature.geometry.coordinates;
    positions.set(String(feature.id), { ra: lon < 0 ? lon + 360 : lon, dec: lat, magnitude: Number(feature.properties.mag) });
  }
  const candidates: StarDraft[] = [];
  const letters = new Map<string, StarDraft[]>();
  let unplaced = 0;
  for (const [hip, star] of Object.entries(sources.starNames)) {
    const name = star.name?.trim() ?? "";
    const genitive = star.c ? GENITIVES[star.c] : undefined;
    const bayer = star.bayer && genitive && !/undefined/.test(star.bayer) ? star.bayer : "";
    const flamsteed = star.flam && genitive ? star.flam : "";
    if (!name && !bayer && !flamsteed) continue;
    const position = positions.get(hip);
    if (!position) {
      unplaced += 1;
      continue;
    }
    const candidate: StarDraft = {
      hip,
      ...position,
      names: [
        ...(name ? [{ text: name, catalog: "IAU" as const }] : []),
        ...(bayer
          ? [
              { text: `${bayer} ${star.c}`, catalog: "Bayer" as const },
              { text: `${capitalized(spellGreek(bayer))} ${genitive}`, catalog: null },
            ]
          : []),
        ...(flamsteed
          ? [
              { text: `${flamsteed} ${star.c}`, catalog: "Flamsteed" as const },
              { text: `${flamsteed} ${genitive}`, catalog: null },
            ]
          : []),
        { text: star.hip ?? `HIP ${hip}`, catalog: null },
        ...(star.hd ? [{ text: star.hd, catalog: null }] : []),
      ],
    };
    candidates.push(candidate);
    const letter = /^(\D+)\d$/.exec(bayer)?.[1];
    if (letter) letters.set(`${letter} ${star.c}`, [...(letters.get(`${letter} ${star.c}`) ?? []), candidate]);
  }
  // α1 and α2 Cen: `α Cen` and `Alpha Centauri` name the brighter, unless a star has the bare letter.
  const bare = new Set(candidates.flatMap((candidate) => candidate.names.map((name) => name.text)));
  for (const [designation, members] of letters) {
    if (bare.has(designation)) continue;
    const [letter, constellation] = designation.split(" ") as [string, string];
    const brightest = [...members].sort((a, b) => a.magnitude - b.magnitude)[0]!;
    brightest.names.push({ text: designation, catalog: null }, { text: `${capitalized(spellGreek(letter))} ${GENITIVES[constellation]}`, catalog: null });
  }
  // The source gives some names to several stars (a double's components, a traditional name used
  // twice): each goes to the brightest that carries it. A star left without a name that may
  // designate it (a faint companion) is left out.
  const owner = new Map<string, StarDraft>();
  const brightestFirst = [...candidates].sort((a, b) => a.magnitude - b.magnitude || Number(a.hip) - Number(b.hip));
  for (const candidate of brightestFirst) {
    for (const name of candidate.names) if (!owner.has(nameKey(name.text))) owner.set(nameKey(name.text), candidate);
  }
  const drafts: Draft[] = [];
  let companions = 0;
  for (const candidate of candidates) {
    const owned = candidate.names.filter((name) => owner.get(nameKey(name.text)) === candidate);
    const designation = owned.find((name) => name.catalog !== null);
    if (!designation) {
      companions += 1;
      continue;
    }
    drafts.push({
      designation: designation.text,
      catalog: designation.catalog!,
      kind: "star",
      ra: candidate.ra,
      dec: candidate.dec,
      aliases: owned.filter((name) => name !== designation).map((name) => name.text),
    });
  }
  if (unplaced > 0) notes.push(`${unplaced} named stars have no position in stars.14.json and were left out`);
  if (companions > 0) notes.push(`${companions} stars whose every designation names a brighter star were left out`);
  return drafts;
}

/** Natural order: digit runs compare as numbers (`NGC 224` before `NGC 1976`), the rest by code point. */
export function naturalCompare({ a, b }: { a: string; b: string }): number {
  const partsA = a.split(/(\d+)/);
  const partsB = b.split(/(\d+)/);
  for (let i = 0; i < Math.min(partsA.length, partsB.length); i += 1) {
    const [x, y] = [partsA[i]!, partsB[i]!];
    if (x === y) continue;
    if (i % 2 === 1) return Number(x) - Number(y) || x.length - y.length;
    return x < y ? -1 : 1;
  }
  return partsA.length - partsB.length;
}

const round6 = (value: number) => Number(value.toFixed(6)) + 0;

/** The catalog: one entry per object, each name (by its key) belonging to one object only. */
export function buildCatalog(sources: CatalogSources): { file: CatalogFile; notes: string[] } {
  const notes: string[] = [];
  const drafts = [...deepSky(sources, notes), ...stars(sources, notes)].sort(
    (a, b) => targetCatalogs.indexOf(a.catalog) - targetCatalogs.indexOf(b.catalog) || naturalCompare({ a: a.designation, b: b.designation }),
  );
  // Designations first, then aliases in catalog order: a name two objects carry goes to the one
  // that comes first (a designation over an alias, Messier over NGC over IC over the rest).
  const owner = new Map<string, Draft>();
  for (const draft of drafts) {
    const key = nameKey(draft.designation);
    if (owner.has(key)) throw new Error(`two objects are designated ${draft.designation}`);
    owner.set(key, draft);
  }
  const dropped: string[] = [];
  const entries: CatalogEntry[] = drafts.map((draft) => {
    const aliases: string[] = [];
    for (const alias of draft.aliases) {
      const key = nameKey(alias);
      if (key === "") continue;
      const current = owner.get(key);
      if (current === draft) {
        if (key !== nameKey(draft.designation) && !aliases.some((kept) => nameKey(kept) === key)) aliases.push(alias);
        continue;
      }
      if (current) {
        dropped.push(`${alias} (${draft.designation}, kept by ${current.designation})`);
        continue;
      }
      owner.set(key, draft);
      aliases.push(alias);
    }
    return [draft.designation, draft.catalog, draft.kind, round6(draft.ra), round6(draft.dec), aliases];
  });
  if (dropped.length > 0) notes.push(`${dropped.length} aliases already name another object and stay with it: ${dropped.join(", ")}`);
  const file = catalogFileSchema.parse({
    about: "Made by `pnpm --filter @meridian/domain build:catalog` (catalog-builder.ts); do not edit. Licence: CATALOG-LICENSE.md",
    sources: [
      { name: "OpenNGC, © Mattia Verga, https://github.com/mattiaverga/OpenNGC", package: sources.openNgcPackage, licence: "CC-BY-SA-4.0" },
      { name: "d3-celestial star names and positions, © Olaf Frohn", package: sources.starsPackage, licence: "BSD-3-Clause" },
    ],
    columns: ["designation", "catalog", "kind", "ra (degrees, J2000)", "dec (degrees, J2000)", "aliases"],
    objects: entries,
  });
  return { file, notes };
}

const LINE_LIMIT = 150;

/** One object per line (long alias lists wrapped), so a rebuild's diff reads object by object. */
export function catalogText(file: CatalogFile): string {
  const entryLines = file.objects.map((entry, index) => {
    const comma = index === file.objects.length - 1 ? "" : ",";
    const line = `    ${JSON.stringify(entry)}${comma}`;
    if (line.length <= LINE_LIMIT) return line;
    const head = JSON.stringify(entry.slice(0, 5)).slice(1, -1);
    const aliases = entry[5].map((alias, position) => `      ${JSON.stringify(alias)}${position === entry[5].length - 1 ? "" : ","}`);
    return [`    [${head}, [`, ...aliases, `    ]]${comma}`].join("\n");
  });
  return [
    "{",
    `  "about": ${JSON.stringify(file.about)},`,
    `  "sources": [`,
    file.sources.map((source) => `    ${JSON.stringify(source)}`).join(",\n"),
    "  ],",
    `  "columns": ${JSON.stringify(file.columns)},`,
    `  "objects": [`,
    ...entryLines,
    "  ]",
    "}",
    "",
  ].join("\n");
}
