// Rebuilds src/targets/catalog.json from the development dependencies astronomy-oracle (OpenNGC)
// and d3-celestial (star names and positions): `pnpm --filter @meridian/domain build:catalog`.
import fs from "node:fs";
import { buildCatalog, catalogText, readCatalogSources } from "../src/features/targets/catalog-builder.ts";

const { file, notes } = buildCatalog(readCatalogSources());
const target = new URL("../src/features/targets/catalog.json", import.meta.url);
const text = catalogText(file);
fs.writeFileSync(target, text);
const byCatalog = new Map();
for (const entry of file.objects) byCatalog.set(entry[1], (byCatalog.get(entry[1]) ?? 0) + 1);
const counts = [...byCatalog].map(([catalog, count]) => `${catalog} ${count}`);
process.stdout.write(
  [
    `${target.pathname}: ${file.objects.length} objects, ${file.objects.reduce((sum, entry) => sum + entry[5].length, 0)} aliases, ` +
      `${(Buffer.byteLength(text) / 1024).toFixed(0)} KiB`,
    `by catalog: ${counts.join(", ")}`,
    ...notes,
  ].join("\n") + "\n",
);
