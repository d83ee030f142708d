import type { TypingZone } from "../../lib/zone-time";
import type { ExposureDraft, ObservationDraft, TargetDraft } from "./draft";

/** What every step of the wizard gets: the draft, a way to change it, and each field's message once it is due. */
export interface StepProps {
  draft: ObservationDraft;
  /** Changes the draft; the field at `path` counts as touched from now on, so its message follows what is typed. */
  edit(path: string, change: (draft: ObservationDraft) => ObservationDraft): void;
  /** The field at `path` was left: its message shows from now on. */
  touch(path: string): void;
  errorOf(path: string): string | undefined;
  /** The zone its times are typed in, the one `toInput` reads them in. */
  timeZone: TypingZone;
}

/**
 * StepProps over a draft's state: `edit` changes the draft and touches the field (and `onEdit` hears
 * of it); a field's message is its problem once `shown`, else what the server said of it.
 */
export function stepPropsOf(options: {
  draft: ObservationDraft;
  setDraft(change: (draft: ObservationDraft) => ObservationDraft): void;
  touch(path: string): void;
  problems: Record<string, string>;
  shown(path: string): boolean;
  serverError(path: string): string | undefined;
  onEdit?(path: string): void;
  timeZone: TypingZone;
}): StepProps {
  const { draft, setDraft, touch, problems, shown, serverError, onEdit, timeZone } = options;
  return {
    draft,
    touch,
    timeZone,
    edit: (path, change) => {
      setDraft(change);
      touch(path);
      onEdit?.(path);
    },
    errorOf: (path) => (shown(path) && problems[path]) || serverError(path),
  };
}

/** The props of a text field bound to `path` of the draft. */
export function textProps(props: StepProps, path: string, value: string, set: (draft: ObservationDraft, value: string) => ObservationDraft) {
  return {
    name: path,
    value,
    error: props.errorOf(path),
    onChange: (event: { target: { value: string } }) => props.edit(path, (draft) => set(draft, event.target.value)),
    onBlur: () => props.touch(path),
  };
}

export const withTarget = (draft: ObservationDraft, index: number, change: Partial<TargetDraft>): ObservationDraft => ({
  ...draft,
  targets: draft.targets.map((target, i) => (i === index ? { ...target, ...change } : target)),
});

export const withExposure = (draft: ObservationDraft, index: number, exposureIndex: number, change: Partial<ExposureDraft>): ObservationDraft =>
  withTarget(draft, index, {
    exposures: draft.targets[index]!.exposures.map((exposure, i) => (i === exposureIndex ? { ...exposure, ...change } : exposure)),
  });
