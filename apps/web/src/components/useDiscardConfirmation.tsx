import { useEffect, useRef, useState } from "react";
import { DiscardChangesDialog } from "./DiscardChangesDialog";
import { watchFieldChanges, type FieldChanges } from "./field-changes";
import { showsProblem } from "./shown-problems";

/**
 * Closing a form dialog or drawer without losing what a person typed. Every way of closing it
 * (Escape, the close button, Cancel, the backdrop) goes through `requestClose`: with no control of
 * its forms changed it closes at once, otherwise `confirmation` (render it inside the dialog) asks
 * "Discard your changes?" first. `containerRef` marks where the forms are (the form itself, or a
 * drawer's body); controls outside any form, such as a list's filters, are not input to keep.
 *
 * A request that ends (`busy` goes) without an error or a field in error saved what was typed, so
 * a dialog that stays open after it (a preview, a result) closes at once again.
 */
export function useDiscardConfirmation<Container extends HTMLElement>({ onClose, busy = false }: { onClose(): void; busy?: boolean }) {
  const containerRef = useRef<Container>(null);
  const changes = useRef<FieldChanges | null>(null);
  const [asking, setAsking] = useState(false);
  useEffect(() => {
    const container = containerRef.current;
    if (!container) return;
    const watcher = watchFieldChanges(container);
    changes.current = watcher;
    return () => {
      watcher.stop();
      changes.current = null;
    };
  }, []);
  const wasBusy = useRef(busy);
  useEffect(() => {
    const container = containerRef.current;
    if (wasBusy.current && !busy && container && !showsProblem(container)) changes.current?.acceptCurrentValues();
    wasBusy.current = busy;
  }, [busy]);
  const requestClose = () => {
    if (changes.current?.changed()) setAsking(true);
    else onClose();
  };
  const confirmation = asking ? (
    <DiscardChangesDialog
      onKeepEditing={() => setAsking(false)}
      onDiscard={() => {
        setAsking(false);
        onClose();
      }}
    />
  ) : null;
  return { containerRef, requestClose, confirmation };
}
