/** A control whose value a person sets. */
type FormControl = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** Inputs that hold nothing a person typed or chose. */
const valuelessInputTypes = new Set(["button", "submit", "reset", "image", "hidden"]);

/** Whether `target` is a control of a form inside `container` (a filter outside any form is not input to keep). */
function isWatchedControl(target: EventTarget | null, container: HTMLElement): target is FormControl {
  if (!(target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement)) return false;
  if (target instanceof HTMLInputElement && valuelessInputTypes.has(target.type)) return false;
  return target.form !== null && container.contains(target.form);
}

function valueOf(control: FormControl): string {
  if (control instanceof HTMLInputElement) {
    if (control.type === "checkbox" || control.type === "radio") return String(control.checked);
    if (control.type === "file") return Array.from(control.files ?? [], (file) => file.name).join("\n");
  }
  if (control instanceof HTMLSelectElement && control.multiple) return Array.from(control.selectedOptions, (option) => option.value).join("\n");
  return control.value;
}

export interface FieldChanges {
  /** Whether a control the person reached holds something else than when they reached it. */
  changed(): boolean;
  /** What the controls hold now is saved: closing loses nothing until they change again. */
  acceptCurrentValues(): void;
  stop(): void;
}

/**
 * Watches the controls of the forms inside `container` for what a person changed. A control's
 * starting value is the one it held when it first took focus (every way of changing a control
 * focuses it first), not the one it held when the dialog opened: a value the app fills in by
 * itself afterwards, such as a select that settles on its first option once its list loads, is
 * not the person's change. Typing something and deleting it again leaves nothing changed.
 */
export function watchFieldChanges(container: HTMLElement): FieldChanges {
  const startingValues = new WeakMap<FormControl, string>();
  const remember = (target: EventTarget | null) => {
    if (isWatchedControl(target, container) && !startingValues.has(target)) startingValues.set(target, valueOf(target));
  };
  const controls = () => Array.from(container.querySelectorAll("input, select, textarea")).filter((element) => isWatchedControl(element, container));
  const onFocusIn = (event: FocusEvent) => remember(event.target);
  // The dialog puts focus on its first field before anything here runs.
  remember(document.activeElement);
  // Capture: the starting value is read before any handler of the control can change it.
  container.addEventListener("focusin", onFocusIn, true);
  return {
    changed: () =>
      controls().some((control) => {
        const starting = startingValues.get(control);
        return starting !== undefined && starting !== valueOf(control);
      }),
    acceptCurrentValues: () => {
      for (const control of controls()) startingValues.set(control, valueOf(control));
    },
    stop: () => container.removeEventListener("focusin", onFocusIn, true),
  };
}
