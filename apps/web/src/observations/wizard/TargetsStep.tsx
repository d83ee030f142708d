import { useState } from "react";
import { Plus, Trash2 } from "lucide-react";
import { Button } from "../../components/Button";
import { TextField } from "../../components/TextField";
import { CoordinateField, coordinateText } from "./CoordinateField";
import { FilterField, type FilterSite } from "./FilterField";
import { newExposure, newTarget, type TargetDraft } from "./draft";
import { textProps, withExposure, withTarget, type StepProps } from "./step-props";
import { kindLabel, TargetNameField, type CatalogMatch } from "./TargetNameField";

/**
 * Targets, each with its exposures; field paths are the API's (`targets.0.exposures.1.count`).
 * `sites`: the observatories it may run at, with their reported filters, which the filter fields offer.
 */
export function TargetsStep(props: StepProps & { sites: ReadonlyArray<FilterSite> }) {
  const { draft, edit, errorOf } = props;
  // A target just added takes focus at its name, so the keyboard goes on where the new fields are.
  const [added, setAdded] = useState<number | null>(null);
  return (
    <div className="flex flex-col gap-6">
      {errorOf("targets") ? <p className="text-sm text-red-600">{errorOf("targets")}</p> : null}
      {draft.targets.map((target, index) => (
        <TargetCard key={index} index={index} target={target} focusName={index === added} {...props} />
      ))}
      <div>
        <Button
          variant="secondary"
          icon={<Plus aria-hidden="true" className="size-4" />}
          onClick={() => {
            setAdded(draft.targets.length);
            edit("targets", (current) => ({ ...current, targets: [...current.targets, newTarget()] }));
          }}
        >
          Add target
        </Button>
      </div>
    </div>
  );
}

function TargetCard({
  index,
  target,
  focusName,
  sites,
  ...props
}: StepProps & { index: number; target: TargetDraft; focusName: boolean; sites: ReadonlyArray<FilterSite> }) {
  const { draft, edit, touch, errorOf } = props;
  const [notFound, setNotFound] = useState<string | null>(null);
  const path = `targets.${index}`;
  const onPick = (match: CatalogMatch, how: "picked" | "resolved") =>
    edit(`${path}.name`, (current) => {
      const now = current.targets[index];
      // A name resolved on leaving the field fills only coordinates nobody has typed meanwhile.
      if (!now || (how === "resolved" && (now.ra.trim() || now.dec.trim()))) return current;
      return withTarget(current, index, {
        name: how === "picked" ? match.name : now.name,
        ra: coordinateText.ra(match.ra),
        dec: coordinateText.dec(match.dec),
        source: { name: match.name, designation: match.designation, kind: match.kind },
      });
    });
  const nameHint = target.source
    ? `Position of ${target.source.designation} (${kindLabel(target.source.kind)}) from the catalog, J2000; you may still change it.`
    : notFound === target.name.trim() && notFound
      ? `“${notFound}” is not in the catalog: enter its RA and Dec.`
      : "Type a name for suggestions from the catalog, or any name and its coordinates.";
  return (
    <fieldset className="min-w-0 rounded-lg p-4 ring-1 ring-slate-200">
      <legend className="px-1 text-sm font-semibold text-slate-900">Target {index + 1}</legend>
      <div className="grid gap-3 sm:grid-cols-2">
        <div className="sm:col-span-2">
          <TargetNameField
            label="Target name"
            autoFocus={focusName}
            value={target.name}
            error={errorOf(`${path}.name`)}
            hint={nameHint}
            resolveOnLeave={!target.source && !target.ra.trim() && !target.dec.trim()}
            onChange={(name) => edit(`${path}.name`, (current) => withTarget(current, index, { name, source: null }))}
            onPick={onPick}
            onLeave={() => touch(`${path}.name`)}
            onNotFound={setNotFound}
          />
        </div>
        {(["ra", "dec"] as const).map((axis) => (
          <CoordinateField
            key={axis}
            axis={axis}
            value={target[axis]}
            error={errorOf(`${path}.${axis}`)}
            onChange={(value) => edit(`${path}.${axis}`, (current) => withTarget(current, index, { [axis]: value, source: null }))}
            onBlur={() => touch(`${path}.${axis}`)}
          />
        ))}
      </div>
      <h3 className="mt-5 text-sm font-medium text-slate-700">Exposures</h3>
      {errorOf(`${path}.exposures`) ? <p className="text-sm text-red-600">{errorOf(`${path}.exposures`)}</p> : null}
      {target.exposures.map((exposure, exposureIndex) => {
        const at = `${path}.exposures.${exposureIndex}`;
        const field = (key: keyof typeof exposure) =>
          textProps(props, `${at}.${key}`, exposure[key], (current, value) => withExposure(current, index, exposureIndex, { [key]: value }));
        return (
          <div key={exposureIndex} className="mt-2 grid grid-cols-2 items-start gap-3 sm:grid-cols-[1fr_1fr_1fr_1fr_auto]">
            <FilterField sites={sites} {...field("filter")} />
            <TextField label="Exposure seconds" inputMode="decimal" {...field("exposureSeconds")} />
            <TextField label="Count" inputMode="numeric" {...field("count")} />
            <TextField label="Binning" inputMode="numeric" {...field("binning")} />
            <Button
              variant="ghost"
              className="self-end sm:mb-0.5"
              disabled={target.exposures.length === 1}
              aria-label={`Remove exposure ${exposureIndex + 1} of target ${index + 1}`}
              icon={<Trash2 aria-hidden="true" className="size-4" />}
              onClick={() =>
                edit(`${path}.exposures`, (current) => withTarget(current, index, { exposures: target.exposures.filter((_, i) => i !== exposureIndex) }))
              }
            >
              Remove
            </Button>
          </div>
        );
      })}
      <div className="mt-3 flex flex-wrap gap-2">
        <Button
          variant="secondary"
          icon={<Plus aria-hidden="true" className="size-4" />}
          onClick={() => edit(`${path}.exposures`, (current) => withTarget(current, index, { exposures: [...target.exposures, newExposure()] }))}
        >
          Add exposure
        </Button>
        {draft.targets.length > 1 ? (
          <Button
            variant="ghost"
            aria-label={`Remove target ${index + 1}`}
            icon={<Trash2 aria-hidden="true" className="size-4" />}
            onClick={() => edit("targets", (current) => ({ ...current, targets: current.targets.filter((_, i) => i !== index) }))}
          >
            Remove target
          </Button>
        ) : null}
      </div>
    </fieldset>
  );
}
