import { useRef, useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import type { FrameGrading } from "@meridian/rules/frames";
import { Alert } from "../components/Alert";
import { Card } from "../components/Card";
import { CheckboxField } from "../components/CheckboxField";
import { SaveFooter } from "../components/SaveFooter";
import { TextField } from "../components/TextField";
import { Toggle } from "../components/Toggle";
import { formProblem } from "../lib/form-errors";
import { trpc } from "../trpc";
import { checkProblem, gradingChange, gradingChecks, gradingText, type GradingCheck, type GradingText } from "./grading-text";
import { canManageProject, type Project } from "./labels";
import { refreshProjects } from "./refresh";

const fieldPath = (field: GradingCheck | "repeatRejected") => `frameGrading.${field}`;

/**
 * A project's frame grading: each check switched on with its limit, or off (`null`), and whether
 * rejected exposures are repeated. Checked as typed by the API's own bounds, saved as the change
 * of what differs; the API's field errors appear beside their fields while they still say the same.
 */
export function FrameGradingForm({
  grading,
  canManage,
  busy,
  saved,
  error,
  onSave,
}: {
  grading: FrameGrading;
  canManage: boolean;
  busy: boolean;
  saved: boolean;
  error: unknown;
  onSave(change: Partial<FrameGrading>): void;
}) {
  const [text, setText] = useState<GradingText>(() => gradingText(grading));
  const [submitted, setSubmitted] = useState(false);
  // What the last save sent, so the API's message for a field shows only while the field still says the same.
  const [sent, setSent] = useState<GradingText | null>(null);
  const form = useRef<HTMLFormElement>(null);
  const problem = formProblem(error, { prefix: "update" });
  const change = gradingChange(grading, text);
  const unchanged = Object.keys(change).length === 0;
  const serverError = (field: GradingCheck | "repeatRejected") =>
    sent && JSON.stringify(sent[field]) === JSON.stringify(text[field]) ? problem?.fieldErrors[fieldPath(field)] : undefined;
  const savedText = gradingText(grading);
  // A check just switched on waits for its limit to be typed (or the form sent) before it is found wanting.
  const errorOf = (field: GradingCheck) => {
    const touched = submitted || text[field].text !== savedText[field].text;
    return (touched ? checkProblem(field, text[field]) : null) ?? serverError(field);
  };
  const shownErrors = gradingChecks.some(([field]) => errorOf(field)) || serverError("repeatRejected");
  const general = problem && !shownErrors ? problem.message : null;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitted(true);
    const invalid = gradingChecks.find(([field]) => checkProblem(field, text[field]));
    if (invalid) {
      form.current?.querySelector<HTMLInputElement>(`[name="${invalid[0]}"]`)?.focus();
      return;
    }
    setSent(text);
    onSave(change);
  };

  return (
    <form ref={form} onSubmit={submit} noValidate aria-label="Frame grading">
      <Card
        title="Frame grading"
        description={
          <>
            How each frame of this project is judged once analysed: one that fails a check is rejected, the others accepted. Saving grades the project&apos;s
            analysed frames again by the new checks, from what their analysis measured.
            {canManage ? null : " Only the owner and project admins change these."}
          </>
        }
        footer={
          canManage ? (
            <SaveFooter saved={saved} savedText="Grading saved: the frames were graded again" busy={busy} unchanged={unchanged}>
              Save grading
            </SaveFooter>
          ) : undefined
        }
      >
        {general ? (
          <Alert tone="error" className="mb-4">
            {general}
          </Alert>
        ) : null}
        <div className="flex flex-col divide-y divide-slate-100">
          {gradingChecks.map(([field, info]) => {
            const check = text[field];
            const set = (next: Partial<typeof check>) => setText({ ...text, [field]: { ...check, ...next } });
            return (
              <div key={field} className="min-w-0 pb-3">
                <Toggle
                  label={info.title}
                  description={check.on ? info.description : `Off: no frame is rejected for this. ${info.description}`}
                  checked={check.on}
                  disabled={!canManage}
                  onChange={(on) => set({ on })}
                />
                {check.on ? (
                  <TextField
                    label={info.label}
                    name={field}
                    inputMode={info.inputMode}
                    autoComplete="off"
                    className="max-w-xs"
                    value={check.text}
                    disabled={!canManage}
                    hint={info.hint}
                    error={errorOf(field) ?? undefined}
                    onChange={(event) => set({ text: event.target.value })}
                  />
                ) : null}
              </div>
            );
          })}
          <div className="pt-4">
            <CheckboxField
              label="Repeat rejected exposures"
              description={
                serverError("repeatRejected") ??
                "When an observation ends with fewer accepted frames than an exposure line asks for, the server creates a pending observation " +
                  "for the missing ones (at most 2 repeats deep)."
              }
              checked={text.repeatRejected}
              disabled={!canManage}
              onChange={(repeatRejected) => setText({ ...text, repeatRejected })}
            />
          </div>
        </div>
      </Card>
    </form>
  );
}

/** The grading card of a project's page, saved with the project's update (which regrades its frames in the same write). */
export function ProjectFrameGrading({ project }: { project: Project }) {
  const save = useMutation(trpc.projects.update.mutationOptions({ onSuccess: () => refreshProjects() }));
  return (
    <FrameGradingForm
      grading={project.frameGrading}
      canManage={canManageProject(project)}
      busy={save.isPending}
      saved={save.isSuccess}
      error={save.error}
      onSave={(frameGrading) => save.mutate({ id: project.id, update: { frameGrading } })}
    />
  );
}
