import type { ReactNode } from "react";
import type { TimeDisplay } from "@meridian/rules";
import { QueryClientProvider } from "@tanstack/react-query";
import { cleanup, configure, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, useLocation, type InitialEntry } from "react-router-dom";
import { onTestFinished } from "vitest";
import { setTimeDisplay, timeDisplay } from "../lib/time-display";
import { queryClient } from "../trpc";

// React checks its updates are wrapped in act() only where the environment says it is a test.
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
// `findBy…` and `waitFor` wait for a state; Testing Library's 1 s bound failed a first page load on a
// loaded 2-core machine (the whole unit lane running beside other work). The bound is a safety net.
configure({ asyncUtilTimeout: 10_000 });

interface InAppOptions {
  /** Where the router starts: `/admin/users?q=ada`, or a location with its state. */
  path?: InitialEntry;
  /** Renders `<output data-testid="where">` beside `ui`: where the router is now (path, query, hash), for the test to read. */
  where?: boolean;
  /** The zone choice of the profile (`observatory` unless given): an observatory's time in its zone, the browser's, or UTC. */
  timeDisplay?: TimeDisplay;
}

/** Puts things back as they were when the test ends, however it ends. */
function restoreAfterTest() {
  const choice = timeDisplay();
  const defaults = queryClient.getDefaultOptions();
  onTestFinished(() => {
    // The page goes first, then its questions still on their way: the stub API closes after this (hooks run last-registered first).
    cleanup();
    void queryClient.cancelQueries();
    queryClient.clear();
    queryClient.setDefaultOptions(defaults);
    setTimeDisplay(choice);
  });
}

/** Where the router is (path, query and hash): `screen.getByTestId("where").textContent`. */
function Where() {
  const location = useLocation();
  return <output data-testid="where">{`${location.pathname}${location.search}${location.hash}`}</output>;
}

/**
 * Renders `ui` (`// @vitest-environment happy-dom` atop the file) inside the app's providers: the
 * app's own query client (the one components invalidate), emptied and without retries for the test;
 * a router at `path` (and where it is now, with `where`); the profile's zone choice (the browser's own zone is the process's). Ask what a person sees with
 * Testing Library's `screen`, act with the returned `user`; the page's API is `startApi` (api.ts).
 * Everything is undone when the test ends.
 */
export function renderInApp(ui: ReactNode, options: InAppOptions | string = {}) {
  const { path = "/", ...settings } = typeof options === "string" ? { path: options } : options;
  restoreAfterTest();
  queryClient.clear();
  const defaults = queryClient.getDefaultOptions();
  queryClient.setDefaultOptions({ ...defaults, queries: { ...defaults.queries, retry: false }, mutations: { ...defaults.mutations, retry: false } });
  setTimeDisplay(settings.timeDisplay ?? "observatory");
  const user = userEvent.setup({ delay: null });
  // A wrapper, so that `rerender` keeps the providers.
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>
      <MemoryRouter initialEntries={[path]}>
        {children}
        {settings.where ? <Where /> : null}
      </MemoryRouter>
    </QueryClientProvider>
  );
  return { ...render(ui, { wrapper }), user };
}

/** Text as it reads, with whitespace runs made one space. */
export const textOf = (element: Element | null | undefined) => (element?.textContent ?? "").replace(/\s+/g, " ").trim();

/** The text that describes a control (its hint or message, each element it names in `aria-describedby`), as assistive technology reads it. */
export const descriptionOf = (control: HTMLElement) =>
  (control.getAttribute("aria-describedby") ?? "")
    .split(/\s+/)
    .filter(Boolean)
    .map((id) => document.getElementById(id)?.textContent ?? "")
    .join(" ")
    .trim();

/** The row of the table named `table` whose text includes `text`, if any. */
export const tableRow = (table: string, text: string) =>
  within(screen.getByRole("table", { name: table }))
    .queryAllByRole("row")
    .find((one) => one.textContent?.includes(text));
