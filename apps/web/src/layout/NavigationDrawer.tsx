import { useEffect } from "react";
import { X } from "lucide-react";
import { useMountedDialog } from "../components/useMountedDialog";
import { Logo } from "./Logo";
import { SideNav } from "./SideNav";

/** Where the side navigation is always shown (Tailwind's `lg`), so the drawer is not needed. */
const WIDE_ENOUGH_FOR_SIDE_NAV = "(min-width: 64rem)";

/**
 * The side navigation as a drawer from the left edge on narrower screens, open while mounted: a
 * modal like the other drawers, so focus starts on its close button and stays inside. Escape, the
 * close button and the backdrop close it, and so does choosing a page.
 */
export function NavigationDrawer({ onClose }: { onClose(): void }) {
  const dialog = useMountedDialog(onClose);
  // A modal hidden by CSS would still leave the page inert: close it once the screen is wide enough.
  useEffect(() => {
    const wide = window.matchMedia(WIDE_ENOUGH_FOR_SIDE_NAV);
    const closeWhenWide = () => {
      if (wide.matches) onClose();
    };
    wide.addEventListener("change", closeWhenWide);
    return () => wide.removeEventListener("change", closeWhenWide);
  }, [onClose]);
  return (
    <dialog
      {...dialog}
      aria-label="Navigation"
      className="fixed inset-y-0 right-auto left-0 m-0 h-dvh max-h-none w-72 max-w-[85%] bg-transparent p-0 backdrop:bg-slate-900/40"
    >
      <div className="flex h-full flex-col bg-white shadow-xl">
        <div className="flex h-16 items-center justify-between px-4">
          <Logo />
          <button type="button" aria-label="Close navigation" onClick={onClose} className="rounded-md p-2 text-slate-500 hover:bg-slate-100">
            <X aria-hidden="true" className="size-5" />
          </button>
        </div>
        <div className="flex-1 overflow-y-auto px-3 py-4">
          <SideNav onNavigate={onClose} />
        </div>
      </div>
    </dialog>
  );
}
