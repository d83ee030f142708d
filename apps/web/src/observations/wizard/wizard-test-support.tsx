import { QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { createMemoryRouter, RouterProvider } from "react-router-dom";
import { onTestFinished } from "vitest";
import { NewObservationPage } from "../../pages/NewObservationPage";
import type { Answer, Procedures } from "../../test-support/api";
import { signedIn } from "../../test-support/fixtures";
import { queryClient } from "../../trpc";

type ListedObservatory = NonNullable<Answer<"observatories.list">["items"]>[number];

/** An observatory `usr_owner` may observe at, as `observatories.list` answers it (UTC, offline); `fields` override. */
export const wizardObservatory = (id: string, name: string, fields: ListedObservatory = {}): ListedObservatory => ({
  id,
  name,
  timeZone: "UTC",
  settings: { slewSeconds: 120, readoutSeconds: 10 },
  connection: { online: false },
  myPermissions: { can_view: true, can_observe: true, can_operate: false, can_admin: false },
  ...fields,
});

/** What the wizard asks of the API, for `usr_owner` with one project (`prj_1`) and `observatories`; a submission answers `obs_new`. */
export const wizardApi = (observatories: ListedObservatory[]): Procedures => ({
  "auth.me": () => signedIn({ id: "usr_owner" }),
  "observatories.list": () => ({ items: observatories, nextCursor: null }),
  "observatories.get": ({ id }) => observatories.find((one) => one.id === id)!,
  "projects.list": () => ({ items: [{ id: "prj_1", name: "Survey", status: "active", organizationId: null }], nextCursor: null }),
  "observations.forecastDraft": () => ({ expected: null, reasons: [] }) as unknown as Answer<"observations.forecastDraft">,
  "observations.create": () => ({ id: "obs_new" }),
});

/**
 * The submission wizard at `/observations/new` in a data router of its own (it asks before a filled draft is left, which
 * `renderInApp`'s plain router cannot), beside a stand-in observation page it goes to on submission. Start the stub API
 * first: the page is unmounted before it closes (the last registered runs first). `next(step)` presses Next and waits for
 * that step's heading.
 */
export function renderWizard() {
  queryClient.clear();
  const router = createMemoryRouter(
    [
      { path: "/observations/new", element: <NewObservationPage /> },
      { path: "/observations/:id", element: <p>Observation page</p> },
    ],
    { initialEntries: ["/observations/new"] },
  );
  render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  onTestFinished(cleanup);
  const user = userEvent.setup({ delay: null });
  const next = async (step: number) => {
    await user.click(screen.getByRole("button", { name: "Next" }));
    await screen.findByRole("heading", { level: 2, name: new RegExp(`^Step ${step} of 5`) });
  };
  return { user, next, router };
}
