import { describe, expect, it } from "vitest";
import { fitsHeader } from "./fits";

/** The header's cards, 80 characters each, END and the padding left out. */
const cardsOf = (header: Buffer) => (header.toString("latin1").match(/.{80}/g) ?? []).filter((card) => card.trim() !== "" && !card.startsWith("END"));

describe("FITS header cards", () => {
  it("cuts a string too long for its card inside its quotes, so the card still closes", () => {
    const [card] = cardsOf(fitsHeader([["OBJECT", "x".repeat(100)]]));
    expect(card).toBe(`OBJECT  = '${"x".repeat(68)}'`);
  });

  it("never cuts an escaped quote in half", () => {
    const [card] = cardsOf(fitsHeader([["FILTER", `${"y".repeat(66)}'z`]]));
    // 66 y, then the doubled quote would end at 68 with z beyond: the pair fits, z does not.
    expect(card).toBe(`FILTER  = '${"y".repeat(66)}'''`.padEnd(80));
    const [odd] = cardsOf(fitsHeader([["FILTER", `${"y".repeat(67)}'z`]]));
    // The pair would straddle the 68th character: it goes whole.
    expect(odd).toBe(`FILTER  = '${"y".repeat(67)}'`.padEnd(80));
  });

  it("keeps short strings padded to eight characters, as the standard asks", () => {
    expect(cardsOf(fitsHeader([["OBJECT", "M45"]]))).toEqual([`OBJECT  = 'M45     '`.padEnd(80)]);
  });
});
