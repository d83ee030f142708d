import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { Ban, Copy, ListOrdered, Pause, Pencil, Play } from "lucide-react";
import { useNavigate } from "react-router-dom";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { FormDialog } from "../components/FormDialog";
import { summarizeError } from "../lib/errors";
import type { Observatory } from "../observatories/permissions";
import { trpc } from "../trpc";
import { ChangePriorityDialog, PriorityField } from "./ChangePriorityDialog";
import { EditObservationDialog } from "./edit/EditObservationDialog";
import type { Observation } from "./labels";
import { refreshObservations } from "./ObservationLiveUpdates";
import { useObservationControls } from "./useObservationControls";

type Dialog = "edit" | "priority" | "clone" | "cancel" | null;
const icon = (Icon: typeof Pause) => <Icon aria-hidden="true" className="size-4" />;

function CloneDialog({ observation, onClose }: { observation: Observation; onClose(): void }) {
  const navigate = useNavigate();
  const [priority, setPriority] = useState(observation.priority);
  const clone = useMutation(
    trpc.observations.clone.mutationOptions({
      onSuccess: async (created) => {
        await refreshObservations();
        void navigate(`/observations/${created.id}`, { state: { notice: `A copy of ${observation.name} is pending.` } });
      },
    }),
  );
  return (
    <FormDialog
      title="Clone observation"
      description="A new pending observation with the same targets, constraints and notifications, in the same project and observatory, owned by you."
      submitLabel="Clone"
      busy={clone.isPending}
      error={clone.isError ? summarizeError(clone.error).message : null}
      onSubmit={() => clone.mutate({ id: observation.id, priority, overrides: {} })}
      onClose={onClose}
    >
      <PriorityField value={priority} onChange={setPriority} hint="The copy's priority; the original keeps its own." />
    </FormDialog>
  );
}

/**
 * An observation's controls, each only for who may use it (see `useObservationControls`): the
 * header's buttons, what went wrong with the last one, and their dialogs, for the page to place.
 */
export function useObservationActions(observation: Observation, observatory: Observatory | undefined) {
  const may = useObservationControls(observation, observatory);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const done = (message: string | null) => async () => {
    setDialog(null);
    setNotice(message);
    await refreshObservations();
  };
  const pause = useMutation(trpc.observations.pause.mutationOptions({ onSuccess: done("Paused: dispatch passes it by until it is resumed.") }));
  const resume = useMutation(trpc.observations.resume.mutationOptions({ onSuccess: done("Resumed: it waits for dispatch again.") }));
  const priority = useMutation(trpc.observations.update.mutationOptions({ onSuccess: done("Priority changed.") }));
  const cancel = useMutation(trpc.observations.cancel.mutationOptions({ onSuccess: done(null) }));
  const failed = [pause, resume].find((mutation) => mutation.isError);
  const open = (next: Dialog) => {
    setNotice(null);
    for (const mutation of [pause, resume, priority, cancel]) mutation.reset();
    setDialog(next);
  };

  const buttons = (
    <>
      {may.edit ? (
        <Button variant="secondary" icon={icon(Pencil)} onClick={() => open("edit")}>
          Edit
        </Button>
      ) : null}
      {may.pause ? (
        <Button
          variant="secondary"
          icon={icon(Pause)}
          busy={pause.isPending}
          onClick={() => {
            open(null);
            pause.mutate({ id: observation.id });
          }}
        >
          Pause
        </Button>
      ) : null}
      {may.resume ? (
        <Button
          variant="secondary"
          icon={icon(Play)}
          busy={resume.isPending}
          onClick={() => {
            open(null);
            resume.mutate({ id: observation.id });
          }}
        >
          Resume
        </Button>
      ) : null}
      {may.priority ? (
        <Button variant="secondary" icon={icon(ListOrdered)} onClick={() => open("priority")}>
          Change priority
        </Button>
      ) : null}
      {may.clone ? (
        <Button variant="secondary" icon={icon(Copy)} onClick={() => open("clone")}>
          Clone
        </Button>
      ) : null}
      {may.cancel ? (
        <Button variant="danger" icon={icon(Ban)} onClick={() => open("cancel")}>
          Cancel observation
        </Button>
      ) : null}
    </>
  );
  const hasButtons = Object.values(may).some(Boolean);

  const message = failed ? (
    <Alert tone="error" className="mb-4">
      {summarizeError(failed.error).message}
    </Alert>
  ) : notice ? (
    <Alert tone="success" className="mb-4">
      {notice}
    </Alert>
  ) : null;

  const dialogs = (
    <>
      {dialog === "edit" ? (
        <EditObservationDialog observation={observation} onClose={() => setDialog(null)} onSaved={() => void done("Changes saved.")()} />
      ) : null}
      {dialog === "priority" ? (
        <ChangePriorityDialog
          title="Change priority"
          description="Dispatch sends the highest priority first; among equals, the oldest."
          initial={observation.priority}
          busy={priority.isPending}
          error={priority.isError ? summarizeError(priority.error).message : null}
          onSubmit={(value) => priority.mutate({ id: observation.id, update: { priority: value } })}
          onClose={() => setDialog(null)}
        />
      ) : null}
      {dialog === "clone" ? <CloneDialog observation={observation} onClose={() => setDialog(null)} /> : null}
      <ConfirmDialog
        open={dialog === "cancel"}
        title="Cancel this observation?"
        confirmLabel="Cancel observation"
        cancelLabel="Keep it"
        busy={cancel.isPending}
        error={cancel.isError ? summarizeError(cancel.error).message : null}
        onConfirm={() => cancel.mutate({ id: observation.id })}
        onCancel={() => setDialog(null)}
      >
        It will not be observed. If the observatory is running it now, it is told to stop.
      </ConfirmDialog>
    </>
  );
  return { buttons: hasButtons ? buttons : null, message, dialogs };
}
