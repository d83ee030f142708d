import type { ReactNode } from "react";
import { ConfirmDialog, type ConfirmDialogState } from "../ConfirmDialog";

/** "Leave observatory?" when it is you, else "Remove member?" (or another `noun`); the children say what follows. */
export function RemoveMemberDialog({
  dialog,
  self = false,
  place,
  noun = "member",
  children,
}: {
  dialog: ConfirmDialogState;
  self?: boolean;
  place: string;
  noun?: string;
  children: ReactNode;
}) {
  return (
    <ConfirmDialog {...dialog} title={self ? `Leave ${place}?` : `Remove ${noun}?`} confirmLabel={self ? `Leave ${place}` : `Remove ${noun}`}>
      {children}
    </ConfirmDialog>
  );
}
