import { Plus, Trash2 } from "lucide-react";
import { Button } from "../components/Button";
import { TextField } from "../components/TextField";

export interface ExposureDraft {
  filter: string;
  exposureSeconds: string;
  count: string;
  binning: string;
}
export interface TargetDraft {
  name: string;
  ra: string;
  dec: string;
  exposures: ExposureDraft[];
}

const newExposure = (): ExposureDraft => ({ filter: "L", exposureSeconds: "60", count: "1", binning: "1" });
export const newTarget = (): TargetDraft => ({ name: "", ra: "", dec: "", exposures: [newExposure()] });

/** Targets, each with its exposures; `errors` are keyed as the server names fields (`targets.0.ra`). */
export function TargetFields({
  targets,
  errors,
  onChange,
}: {
  targets: TargetDraft[];
  errors: Record<string, string>;
  onChange(targets: TargetDraft[]): void;
}) {
  const setTarget = (index: number, change: Partial<TargetDraft>) => onChange(targets.map((target, i) => (i === index ? { ...target, ...change } : target)));
  const setExposure = (index: number, exposureIndex: number, change: Partial<ExposureDraft>) =>
    setTarget(index, { exposures: targets[index]!.exposures.map((exposure, i) => (i === exposureIndex ? { ...exposure, ...change } : exposure)) });
  return (
    <div className="flex flex-col gap-6">
      {targets.map((target, index) => (
        <fieldset key={index} className="rounded-lg p-4 ring-1 ring-slate-200">
          <legend className="px-1 text-sm font-semibold text-slate-900">Target {index + 1}</legend>
          <div className="grid gap-3 sm:grid-cols-3">
            <TextField
              label="Name"
              required
              value={target.name}
              onChange={(e) => setTarget(index, { name: e.target.value })}
              error={errors[`targets.${index}.name`]}
            />
            <TextField
              label="RA (degrees)"
              inputMode="decimal"
              required
              hint="0 to under 360"
              value={target.ra}
              onChange={(e) => setTarget(index, { ra: e.target.value })}
              error={errors[`targets.${index}.ra`]}
            />
            <TextField
              label="Dec (degrees)"
              inputMode="decimal"
              required
              hint="−90 to 90"
              value={target.dec}
              onChange={(e) => setTarget(index, { dec: e.target.value })}
              error={errors[`targets.${index}.dec`]}
            />
          </div>
          <h3 className="mt-4 text-sm font-medium text-slate-700">Exposures</h3>
          {errors[`targets.${index}.exposures`] ? <p className="text-sm text-red-600">{errors[`targets.${index}.exposures`]}</p> : null}
          {target.exposures.map((exposure, exposureIndex) => {
            const key = `targets.${index}.exposures.${exposureIndex}`;
            return (
              <div key={exposureIndex} className="mt-2 grid grid-cols-2 items-end gap-3 sm:grid-cols-5">
                <TextField
                  label="Filter"
                  value={exposure.filter}
                  onChange={(e) => setExposure(index, exposureIndex, { filter: e.target.value })}
                  error={errors[`${key}.filter`]}
                />
                <TextField
                  label="Seconds"
                  inputMode="decimal"
                  value={exposure.exposureSeconds}
                  onChange={(e) => setExposure(index, exposureIndex, { exposureSeconds: e.target.value })}
                  error={errors[`${key}.exposureSeconds`]}
                />
                <TextField
                  label="Count"
                  inputMode="numeric"
                  value={exposure.count}
                  onChange={(e) => setExposure(index, exposureIndex, { count: e.target.value })}
                  error={errors[`${key}.count`]}
                />
                <TextField
                  label="Binning"
                  inputMode="numeric"
                  value={exposure.binning}
                  onChange={(e) => setExposure(index, exposureIndex, { binning: e.target.value })}
                  error={errors[`${key}.binning`]}
                />
                <Button
                  variant="ghost"
                  disabled={target.exposures.length === 1}
                  aria-label={`Remove exposure ${exposureIndex + 1} of target ${index + 1}`}
                  icon={<Trash2 aria-hidden="true" className="size-4" />}
                  onClick={() => setTarget(index, { exposures: target.exposures.filter((_, i) => i !== exposureIndex) })}
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
              onClick={() => setTarget(index, { exposures: [...target.exposures, newExposure()] })}
            >
              Add exposure
            </Button>
            {targets.length > 1 ? (
              <Button variant="ghost" icon={<Trash2 aria-hidden="true" className="size-4" />} onClick={() => onChange(targets.filter((_, i) => i !== index))}>
                Remove target
              </Button>
            ) : null}
          </div>
        </fieldset>
      ))}
      <div>
        <Button variant="secondary" icon={<Plus aria-hidden="true" className="size-4" />} onClick={() => onChange([...targets, newTarget()])}>
          Add target
        </Button>
      </div>
    </div>
  );
}

/** The drafts as the API takes them; text that is not a number stays as it is, so the server names the field. */
export const targetsInput = (targets: TargetDraft[]) =>
  targets.map((target) => ({
    name: target.name,
    ra: asNumber(target.ra),
    dec: asNumber(target.dec),
    exposures: target.exposures.map((exposure) => ({
      filter: exposure.filter,
      exposureSeconds: asNumber(exposure.exposureSeconds),
      count: asNumber(exposure.count),
      binning: asNumber(exposure.binning),
    })),
  }));

export const asNumber = (text: string) => (text.trim() !== "" && Number.isFinite(Number(text)) ? Number(text) : (text as unknown as number));
