import { SelectField } from "../../components/SelectField";
import { TextField } from "../../components/TextField";
import { CandidatesPicker, WherePicker, type ObservatoryChoice } from "./CandidatesPicker";
import { textProps, type StepProps } from "./step-props";

export interface Choice {
  id: string;
  label: string;
}

/**
 * Its name, and where it goes: an active project of the caller's, an observatory where they may
 * observe (or, when they may observe at several, any of those they tick), and, for a project of an
 * organization with storage destinations, where its files are copied.
 */
export function ObservationStep({
  projects,
  observatories,
  destinations,
  ...props
}: StepProps & { projects: Choice[]; observatories: ObservatoryChoice[]; destinations: Choice[] }) {
  const { draft, edit, touch, errorOf } = props;
  const select = (path: "projectId" | "observatoryId" | "storageDestinationId") => ({
    name: path,
    value: draft[path],
    error: errorOf(path),
    // Destinations belong to the project's organization: another project starts without one.
    onChange: (event: { target: { value: string } }) =>
      edit(path, (current) => ({ ...current, [path]: event.target.value, ...(path === "projectId" ? { storageDestinationId: "" } : {}) })),
    onBlur: () => touch(path),
  });
  return (
    <div className="grid gap-4 sm:grid-cols-2">
      <TextField
        label="Name"
        required
        maxLength={200}
        autoComplete="off"
        className="sm:col-span-2"
        {...textProps(props, "name", draft.name, (current, name) => ({ ...current, name }))}
      />
      <SelectField label="Project" required {...select("projectId")}>
        <option value="">Choose a project</option>
        {projects.map((project) => (
          <option key={project.id} value={project.id}>
            {project.label}
          </option>
        ))}
      </SelectField>
      {observatories.length >= 2 || draft.where === "any" ? <WherePicker draft={draft} edit={edit} /> : null}
      {draft.where === "any" ? (
        <CandidatesPicker draft={draft} edit={edit} errorOf={errorOf} observatories={observatories} />
      ) : (
        <SelectField label="Observatory" required hint="Observatories where you may observe." {...select("observatoryId")}>
          <option value="">Choose an observatory</option>
          {observatories.map((observatory) => (
            <option key={observatory.id} value={observatory.id}>
              {observatory.label}
            </option>
          ))}
        </SelectField>
      )}
      {destinations.length > 0 ? (
        <SelectField
          label="Deliver files to"
          className="sm:col-span-2"
          hint="Each file is also copied to this destination of the project's organization as soon as it is uploaded."
          {...select("storageDestinationId")}
        >
          <option value="">Nowhere else (keep them on this server only)</option>
          {destinations.map((destination) => (
            <option key={destination.id} value={destination.id}>
              {destination.label}
            </option>
          ))}
        </SelectField>
      ) : null}
    </div>
  );
}
