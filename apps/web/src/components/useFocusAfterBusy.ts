import { useEffect, useRef, type RefObject } from "react";
import { firstInvalidControl, showsProblem } from "./shown-problems";

/** A dialog's way back (ModalActions' Cancel carries the attribute), where focus goes after a refusal. */
const wayBackSelector = "[data-dialog-way-back]:not(:disabled)";
/**
 * The control to go on with when the one that had focus is gone after its request (the next
 * announcement's Acknowledge button once one is acknowledged): the first of them still enabled.
 */
const nextSelector = "[data-focus-next]:not(:disabled)";

const isEnabled = (element: HTMLElement) => !element.matches(":disabled");

/**
 * Where focus goes once a request is over and it is no longer inside the dialog: the first field
 * in error, to correct it; after any other refusal, the way back (the alert is read out by
 * itself); else the control that had it last (the submit button, enabled again), else the next
 * control to go on with (`data-focus-next`), else the way back.
 */
function focusAfterRequest(dialog: HTMLDialogElement, lastFocused: HTMLElement | null): HTMLElement | null {
  const invalid = firstInvalidControl(dialog);
  if (invalid) return invalid;
  const wayBack = dialog.querySelector<HTMLElement>(wayBackSelector);
  if (wayBack && showsProblem(dialog)) return wayBack;
  if (lastFocused?.isConnected && dialog.contains(lastFocused) && isEnabled(lastFocused)) return lastFocused;
  return dialog.querySelector<HTMLElement>(nextSelector) ?? wayBack;
}

/**
 * A button disabled while its request runs drops focus to the page's body, where a keyboard or
 * screen reader user is lost once the request ends (the body is outside the dialog, before its
 * first control), and so does one removed once it succeeded (a drawer's Repair button). When `busy`
 * ends with focus no longer inside `dialogRef`, it goes back in. Modal and Drawer call it with their
 * `busy`; a dialog closed at the end gives focus back through `restoreFocus` instead.
 */
export function useFocusAfterBusy(dialogRef: RefObject<HTMLDialogElement | null>, busy: boolean) {
  const lastFocused = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    const remember = (event: FocusEvent) => {
      if (event.target instanceof HTMLElement) lastFocused.current = event.target;
    };
    dialog.addEventListener("focusin", remember);
    return () => dialog.removeEventListener("focusin", remember);
  }, [dialogRef]);
  const wasBusy = useRef(busy);
  useEffect(() => {
    const ended = wasBusy.current && !busy;
    wasBusy.current = busy;
    const dialog = dialogRef.current;
    if (!ended || !dialog?.open) return;
    const focused = document.activeElement;
    if (focused && focused !== dialog && dialog.contains(focused)) return;
    focusAfterRequest(dialog, lastFocused.current)?.focus();
  }, [busy, dialogRef]);
}
