import { useEffect, useRef, useState, type ReactNode } from "react";
import { useQuery } from "@tanstack/react-query";
import { CircleCheck, Circle, Plus, X } from "lucide-react";
import { useMe } from "../auth/useMe";
import { ActionLink } from "../components/ActionLink";
import { Button } from "../components/Button";
import { CreateObservatoryDialog } from "../observatories/CreateObservatoryDialog";
import { useNewPluginKey } from "../observatories/new-plugin-key";
import { PluginCommand } from "../observatories/PluginCommand";
import { CreateOrganizationDialog } from "../organizations/CreateOrganizationDialog";
import type { RouterOutputs } from "../organizations/types";
import { CreateProjectDialog } from "../projects/CreateProjectDialog";
import { queryClient, trpc } from "../trpc";
import { useChecklistEnding } from "./checklist-memory";

type Checklist = RouterOutputs["user"]["gettingStarted"];
type StepId = Checklist["steps"][number]["id"];
type Creating = "observatory" | "organization" | "project";

const titles: Record<StepId, string> = {
  join: "Join or create an organization or observatory",
  location: "Set the observatory's location",
  plugin: "Create a plugin key and connect a plugin",
  project: "Create a project",
  observation: "Submit a first observation",
};

const plus = <Plus aria-hidden="true" className="size-4" />;
const refreshChecklist = () => queryClient.invalidateQueries(trpc.user.gettingStarted.queryFilter());

/** How often the checklist is read again: often while the user may be starting a plugin in a terminal, seldom otherwise. */
function refetchEvery(checklist: Checklist | undefined): number | false {
  if (!checklist || checklist.steps.every((step) => step.done)) return false;
  const waitingForPlugin = checklist.observatory?.canAdmin && !checklist.steps.some((step) => step.id === "plugin" && step.done);
  return waitingForPlugin ? 10_000 : 60_000;
}

/**
 * The dashboard's first-night checklist, until every step is done or the user hides it. Each step's
 * state comes from the server (`user.gettingStarted`), read again while a step is open, so a plugin
 * connecting from a terminal, or an administrator adding the user, ticks its step here.
 */
export function GettingStarted() {
  const me = useMe();
  const { ended, end } = useChecklistEnding(me.data?.id);
  const checklist = useQuery(
    trpc.user.gettingStarted.queryOptions(undefined, {
      staleTime: 0,
      enabled: Boolean(me.data) && !ended,
      refetchInterval: (query) => refetchEvery(query.state.data),
    }),
  );
  const allDone = checklist.data?.steps.every((step) => step.done) ?? false;
  useEffect(() => {
    if (allDone) end("finished");
  }, [allDone, end]);
  if (ended || !checklist.data || allDone) return null;
  const dismiss = () => {
    // The button goes with the checklist: the page's heading takes the focus.
    document.querySelector<HTMLElement>("#main h1")?.focus();
    end("dismissed");
  };
  return <ChecklistCard checklist={checklist.data} email={me.data?.email ?? ""} onDismiss={dismiss} />;
}

function ChecklistCard({ checklist, email, onDismiss }: { checklist: Checklist; email: string; onDismiss(): void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const [creating, setCreating] = useState<Creating | null>(null);
  // After a creation the step's button is gone with the dialog: focus goes to the checklist's heading.
  const refocus = useRef(false);
  useEffect(() => {
    if (creating || !refocus.current) return;
    heading.current?.focus();
    refocus.current = false;
  }, [creating]);
  // The dialog closes once the checklist has the new step done (refreshing never rejects).
  const created = () =>
    void refreshChecklist().then(() => {
      refocus.current = true;
      setCreating(null);
    });
  const done = checklist.steps.filter((step) => step.done).length;
  const stepDone = (id: StepId) => checklist.steps.find((step) => step.id === id)?.done ?? false;

  return (
    <section aria-labelledby="first-night-title" className="mb-6 rounded-lg bg-white shadow-sm ring-1 ring-slate-200">
      <header className="flex items-start justify-between gap-3 border-b border-slate-100 px-4 py-4 sm:px-6">
        <div className="min-w-0">
          <h2 id="first-night-title" ref={heading} tabIndex={-1} className="text-base font-semibold text-slate-900 focus:outline-none">
            Your first night
          </h2>
          <p className="mt-1 text-sm text-slate-500">
            {done} of {checklist.steps.length} steps done. Each tick comes from what Meridian sees, so it follows you wherever you do the step.
          </p>
        </div>
        <Button variant="ghost" className="shrink-0" icon={<X aria-hidden="true" className="size-4" />} onClick={onDismiss}>
          Hide<span className="sr-only"> the first-night checklist</span>
        </Button>
      </header>
      <ol aria-labelledby="first-night-title" className="divide-y divide-slate-100">
        {checklist.steps.map((step, index) => (
          <li key={step.id} className="flex gap-3 px-4 py-4 sm:px-6">
            {step.done ? (
              <CircleCheck aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-emerald-600" />
            ) : (
              <Circle aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-slate-300" />
            )}
            <div className="flex min-w-0 flex-1 flex-col gap-2">
              <h3 className={`text-sm font-semibold ${step.done ? "text-slate-500" : "text-slate-900"}`}>
                <span className="sr-only">{step.done ? "Done: " : "To do: "}</span>
                {index + 1}. {titles[step.id]}
              </h3>
              {step.done ? null : (
                <StepDetail
                  id={step.id}
                  checklist={checklist}
                  email={email}
                  joinDone={stepDone("join")}
                  projectDone={stepDone("project")}
                  onCreate={setCreating}
                />
              )}
            </div>
          </li>
        ))}
      </ol>
      {creating === "observatory" ? <CreateObservatoryDialog onClose={() => setCreating(null)} onCreated={created} /> : null}
      {creating === "organization" ? <CreateOrganizationDialog onClose={() => setCreating(null)} onCreated={created} /> : null}
      {creating === "project" ? <CreateProjectDialog onClose={() => setCreating(null)} onCreated={created} /> : null}
    </section>
  );
}

function Detail({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  return (
    <>
      <p className="text-sm text-slate-600">{children}</p>
      {actions ? <div className="flex flex-wrap gap-2">{actions}</div> : null}
    </>
  );
}

function StepDetail({
  id,
  checklist,
  email,
  joinDone,
  projectDone,
  onCreate,
}: {
  id: StepId;
  checklist: Checklist;
  email: string;
  joinDone: boolean;
  projectDone: boolean;
  onCreate(what: Creating): void;
}) {
  const { observatory } = checklist;
  const newKey = useNewPluginKey(observatory?.canAdmin ? observatory.id : undefined);
  const page = observatory ? `/observatories/${observatory.id}` : "";
  // The first step offers it; once that step is done by an organization, the location step offers it until there is an observatory.
  const newObservatory = (
    <Button icon={plus} onClick={() => onCreate("observatory")}>
      New observatory
    </Button>
  );
  switch (id) {
    case "join":
      return (
        <Detail
          actions={
            <>
              {newObservatory}
              <Button variant="secondary" icon={plus} onClick={() => onCreate("organization")}>
                New organization
              </Button>
            </>
          }
        >
          An observatory is your telescope here; an organization is the club, school or institute that shares observatories and projects. To join one that
          exists, ask its administrator to add you by your email address, <span className="font-medium break-all">{email}</span>.
        </Detail>
      );
    case "location":
      if (!observatory)
        return (
          <Detail actions={joinDone ? newObservatory : undefined}>
            Once you have an observatory (your own, or one whose administrators add you): dispatch checks darkness and each target's altitude from where it
            stands.
          </Detail>
        );
      return observatory.canAdmin ? (
        <Detail actions={<ActionLink to={`${page}?settings=open`}>Set the location of {observatory.name}</ActionLink>}>
          Dispatch checks darkness and each target's altitude from where {observatory.name} stands.
        </Detail>
      ) : (
        <Detail
          actions={
            <ActionLink variant="secondary" to={`${page}?tab=members`}>
              See who administers {observatory.name}
            </ActionLink>
          }
        >
          Only the administrators of {observatory.name} set its location: ask one of them.
        </Detail>
      );
    case "plugin":
      if (!observatory) return <Detail>Once you have an observatory: its plugin connects with a key of that observatory.</Detail>;
      if (!observatory.canAdmin)
        return (
          <Detail
            actions={
              <ActionLink variant="secondary" to={`${page}?tab=members`}>
                See who administers {observatory.name}
              </ActionLink>
            }
          >
            The administrators of {observatory.name} create its plugin keys and connect its plugin: ask one of them.
          </Detail>
        );
      return (
        <>
          <Detail
            actions={
              <ActionLink variant={observatory.hasKey ? "secondary" : "primary"} to={`${page}?tab=keys`}>
                {observatory.hasKey ? `Plugin keys of ${observatory.name}` : `Create a plugin key for ${observatory.name}`}
              </ActionLink>
            }
          >
            {observatory.hasKey
              ? `${observatory.name} has a plugin key; this step is done once a plugin has connected with it.`
              : `The plugin on the telescope's computer connects with a key of ${observatory.name}; Meridian shows it once.`}
          </Detail>
          <PluginCommand secret={newKey} />
        </>
      );
    case "project":
      return (
        <Detail
          actions={
            <Button icon={plus} onClick={() => onCreate("project")}>
              New project
            </Button>
          }
        >
          Every observation belongs to a project: an observing programme you plan alone or with others.
        </Detail>
      );
    case "observation":
      return (
        <Detail actions={<ActionLink to="/observations/new">New observation</ActionLink>}>
          Choose a target and its exposures; dispatch sends it to the telescope when it can be observed.
          {projectDone && observatory ? "" : " It needs a project and an observatory you may observe with."}
        </Detail>
      );
  }
}
