import { act, type ReactNode } from "react";
import { createRoot } from "react-dom/client";

// React checks its updates are wrapped in act() only where the environment says it is a test.
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/**
 * A component mounted in the test's DOM (happy-dom: `// @vitest-environment happy-dom` atop the
 * file), with ways to find what a person finds (by label, by text) and to act as one would.
 */
export function render(node: ReactNode) {
  const container = document.createElement("div");
  document.body.append(container);
  const root = createRoot(container);
  act(() => root.render(node));
  return {
    container,
    rerender: (next: ReactNode) => act(() => root.render(next)),
    unmount: () => {
      act(() => root.unmount());
      container.remove();
    },
  };
}

/** The control a `<label>` names (exactly, trimmed), as a person finds a field. */
export function byLabel<T extends HTMLElement = HTMLInputElement>(within: ParentNode, text: string): T {
  const label = [...within.querySelectorAll("label")].find((element) => element.textContent?.trim() === text);
  const control = label?.htmlFor ? (within.querySelector(`[id="${label.htmlFor}"]`) as T | null) : null;
  if (!control) throw new Error(`No control labelled "${text}"`);
  return control;
}

/** The element whose accessible name (`aria-label`) is `name`. */
export function byName<T extends HTMLElement = HTMLElement>(within: ParentNode, name: string): T {
  const element = [...within.querySelectorAll<T>("[aria-label]")].find((candidate) => candidate.getAttribute("aria-label") === name);
  if (!element) throw new Error(`Nothing named "${name}"`);
  return element;
}

/** Text as it reads, with whitespace runs made one space. */
export const textOf = (element: Element | null | undefined) => (element?.textContent ?? "").replace(/\s+/g, " ").trim();

/** Types into a field as React hears it: the value set past React's own tracker, then an input event. */
export function type(input: HTMLInputElement, text: string) {
  act(() => {
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!.call(input, text);
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });
}

export function click(element: HTMLElement) {
  act(() => element.click());
}

/** Sends the form as pressing Enter or its submit button does. */
export function submit(form: HTMLFormElement) {
  act(() => form.requestSubmit());
}
