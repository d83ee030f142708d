/**
 * "Firefox on Windows" from a User-Agent header: enough to recognize one's own devices.
 * Order matters: Edge and Opera also say Chrome, Chrome also says Safari, Android also says Linux.
 */
const browsers: Array<[RegExp, string]> = [
  [/Edg(e|A|iOS)?\//, "Edge"],
  [/OPR\/|Opera/, "Opera"],
  [/Firefox\/|FxiOS\//, "Firefox"],
  [/Chrome\/|CriOS\/|Chromium\//, "Chrome"],
  [/Safari\//, "Safari"],
  [/curl\//i, "curl"],
  [/python/i, "Python"],
  [/node|undici/i, "Node.js"],
];

const systems: Array<[RegExp, string]> = [
  [/Android/, "Android"],
  [/iPhone|iPad|iPod/, "iOS"],
  [/Windows/, "Windows"],
  [/Mac OS X|Macintosh/, "macOS"],
  [/CrOS/, "ChromeOS"],
  [/Linux/, "Linux"],
];

const firstMatch = (userAgent: string, table: Array<[RegExp, string]>) => table.find(([pattern]) => pattern.test(userAgent))?.[1];

export function describeUserAgent(userAgent: string | null | undefined): string {
  const text = userAgent?.trim();
  if (!text) return "Unknown device";
  const browser = firstMatch(text, browsers);
  const system = firstMatch(text, systems);
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? system ?? (text.length > 60 ? `${text.slice(0, 57)}…` : text);
}
