import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser } from "playwright-core";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const webDistDir = path.join(repoRoot, "apps/web/dist");

/** The test command builds the SPA first (turbo); build it here only when that did not happen. */
export function ensureWebBuilt(): string {
  if (!fs.existsSync(path.join(webDistDir, "index.html"))) {
    execFileSync("pnpm", ["--filter", "@meridian/web", "build"], { cwd: repoRoot, stdio: "inherit", env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1" } });
  }
  return webDistDir;
}

/** Debian's Chromium; browsers are never downloaded. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

/** A 1×1 PNG: the smallest real image the avatar endpoint accepts. */
export const ONE_PIXEL_PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");
