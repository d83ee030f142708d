// @vitest-environment happy-dom
import { screen, within } from "@testing-library/react";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import { descriptionOf, renderInApp } from "../test-support/render";
import { RadioGroup } from "./RadioGroup";

const seeings = [
  { value: "good", label: "Good", description: "Stars are sharp." },
  { value: "fair", label: "Fair", description: "Stars twinkle." },
  { value: "poor", label: "Poor", description: "Stars swim." },
] as const;

function Seeing({ chosen }: { chosen: string[] }) {
  const [value, setValue] = useState<(typeof seeings)[number]["value"]>("good");
  return (
    <>
      <button type="button">Before</button>
      <RadioGroup
        legend="Seeing"
        choices={seeings}
        value={value}
        onChange={(next) => {
          chosen.push(next);
          setValue(next);
        }}
      />
      <button type="button">After</button>
    </>
  );
}

describe("a radio group", () => {
  it("is a group named by its legend, each radio named by its label and described by its sentence", () => {
    renderInApp(<Seeing chosen={[]} />);
    const group = screen.getByRole("group", { name: "Seeing" });
    const radios = within(group).getAllByRole("radio");
    expect(radios.map((radio) => radio.getAttribute("value"))).toEqual(["good", "fair", "poor"]);
    expect(descriptionOf(within(group).getByRole("radio", { name: "Fair" }))).toBe("Stars twinkle.");
    expect((within(group).getByRole("radio", { name: "Good" }) as HTMLInputElement).checked).toBe(true);
  });

  it("is reached by Tab once, at the checked radio, and chosen with the arrow keys", async () => {
    const chosen: string[] = [];
    const { user } = renderInApp(<Seeing chosen={chosen} />);
    screen.getByRole("button", { name: "Before" }).focus();
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole("radio", { name: "Good" }));
    await user.keyboard("{ArrowDown}");
    expect(document.activeElement).toBe(screen.getByRole("radio", { name: "Fair" }));
    expect((screen.getByRole("radio", { name: "Fair" }) as HTMLInputElement).checked).toBe(true);
    await user.keyboard("{ArrowDown}{ArrowUp}");
    expect(chosen).toEqual(["fair", "poor", "fair"]);
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "After" }));
  });
});
