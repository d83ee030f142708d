import { useId, type ReactNode } from "react";
import { X } from "lucide-react";
import { useDiscardConfirmation } from "./useDiscardConfirmation";
import { useFocusAfterBusy } from "./useFocusAfterBusy";
import { useMountedDialog } from "./useMountedDialog";

/**
 * A side panel over the page, open while mounted: a modal <dialog> pinned to the right edge, so
 * focus stays inside and the page behind is inert. Escape, the close button and a click on the
 * backdrop close it, and focus then goes back to what opened it; with a changed field of a form in
 * it, only once the person agrees to discard it. `busy` while a request of its own runs: a button
 * disabled meanwhile, or removed once it succeeded, does not leave focus on the page's body (see
 * `useFocusAfterBusy`; the close button is the way back).
 */
export function Drawer({
  title,
  description,
  busy = false,
  onClose,
  children,
}: {
  title: string;
  description?: ReactNode;
  busy?: boolean;
  onClose(): void;
  children: ReactNode;
}) {
  const { containerRef, requestClose, confirmation } = useDiscardConfirmation<HTMLDivElement>({ onClose });
  const dialog = useMountedDialog(requestClose);
  useFocusAfterBusy(dialog.ref, busy);
  const titleId = useId();
  return (
    <dialog
      {...dialog}
      aria-labelledby={titleId}
      className="fixed inset-y-0 right-0 left-auto m-0 h-dvh max-h-none w-full max-w-3xl bg-transparent p-0 backdrop:bg-slate-900/40"
    >
      <div className="flex h-full flex-col bg-white shadow-xl">
        <header className="flex items-start justify-between gap-4 border-b border-slate-200 px-5 py-4">
          <div className="min-w-0">
            <h2 id={titleId} className="truncate text-base font-semibold text-slate-900">
              {title}
            </h2>
            {description ? <div className="mt-1 text-sm text-slate-500">{description}</div> : null}
          </div>
          <button
            type="button"
            aria-label="Close"
            data-dialog-way-back
            onClick={requestClose}
            className="-mt-1 -mr-2 rounded-md p-1.5 text-slate-400 hover:bg-slate-100 hover:text-slate-600"
          >
            <X aria-hidden="true" className="size-4" />
          </button>
        </header>
        <div ref={containerRef} className="flex-1 overflow-y-auto px-5 py-5">
          {children}
        </div>
      </div>
      {confirmation}
    </dialog>
  );
}
