import { describe, expect, it } from "vitest";
import { detectImageType } from "./avatar";

const bytes = (...values: number[]) => Uint8Array.from(values);

describe("detectImageType", () => {
  it.each([
    ["PNG", bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00), "image/png"],
    ["JPEG (JFIF)", bytes(0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10), "image/jpeg"],
    ["JPEG (Exif)", bytes(0xff, 0xd8, 0xff, 0xe1), "image/jpeg"],
    ["GIF87a", Buffer.from("GIF87a\x01\x00", "latin1"), "image/gif"],
    ["GIF89a", Buffer.from("GIF89a\x01\x00", "latin1"), "image/gif"],
  ])("recognises %s by its leading bytes", (_label, input, expected) => {
    expect(detectImageType(input)).toBe(expected);
  });

  it.each([
    ["empty input", bytes()],
    ["a PNG signature cut short", bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a)],
    ["two JPEG bytes", bytes(0xff, 0xd8)],
    ["GIF without version", Buffer.from("GIF8", "latin1")],
    ["GIF88a", Buffer.from("GIF88a", "latin1")],
    ["text", Buffer.from("hello world")],
    ["SVG", Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>")],
    ["WebP", Buffer.from("RIFF\x00\x00\x00\x00WEBP", "latin1")],
    ["a PNG signature not at the start", bytes(0x00, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)],
  ])("refuses %s", (_label, input) => {
    expect(detectImageType(input)).toBeUndefined();
  });
});
