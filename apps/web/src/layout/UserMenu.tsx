import { useEffect, useId, useRef, useState, type KeyboardEvent as ReactKeyboardEvent } from "react";
import { ChevronDown, KeyRound, LockKeyhole, LogOut, UserRound } from "lucide-react";
import { Link } from "react-router-dom";
import { useMe } from "../auth/useMe";
import { useSignOut } from "../auth/useSignOut";
import { UserAvatar } from "../components/UserAvatar";

// The arrow keys move focus through the items: the focused one has the app's focus outline, inside its edges.
const itemClass =
  "flex w-full items-center gap-2 px-4 py-2 text-left text-sm text-slate-700 hover:bg-slate-50 focus:bg-slate-50 " +
  "focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-indigo-600";

export function UserMenu() {
  const me = useMe();
  const signOut = useSignOut();
  const [open, setOpen] = useState(false);
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<HTMLDivElement>(null);
  /** Which item to focus once the menu has opened: the first or the last. */
  const [focusOnOpen, setFocusOnOpen] = useState<"first" | "last" | null>(null);
  const menuId = useId();

  const items = () => [...(menuRef.current?.querySelectorAll<HTMLElement>('[role="menuitem"]:not([disabled])') ?? [])];
  const close = (returnFocus: boolean) => {
    setOpen(false);
    if (returnFocus) buttonRef.current?.focus();
  };

  useEffect(() => {
    if (!open || !focusOnOpen) return;
    const list = items();
    (focusOnOpen === "first" ? list[0] : list[list.length - 1])?.focus();
    // A one-shot request, answered once the items are in the DOM: cleared so that a click that opens the menu later focuses nothing.
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the items exist only after the render that opens the menu
    setFocusOnOpen(null);
  }, [open, focusOnOpen]);

  // The WAI-ARIA menu button: Enter, Space and ArrowDown open on the first item, ArrowUp on the last.
  const onButtonKeyDown = (event: ReactKeyboardEvent<HTMLButtonElement>) => {
    if (event.key === "Escape" && open) return close(true);
    if (event.key === "ArrowDown" || event.key === "Enter" || event.key === " ") setFocusOnOpen("first");
    else if (event.key === "ArrowUp") setFocusOnOpen("last");
    else return;
    event.preventDefault();
    setOpen(true);
  };
  // Inside the menu: arrows move (wrapping), Home and End jump, Escape closes back to the button, Tab leaves.
  const onMenuKeyDown = (event: ReactKeyboardEvent<HTMLDivElement>) => {
    const list = items();
    const index = list.indexOf(document.activeElement as HTMLElement);
    let next: HTMLElement | undefined;
    if (event.key === "ArrowDown") next = list[(index + 1) % list.length];
    else if (event.key === "ArrowUp") next = list[(index - 1 + list.length) % list.length];
    else if (event.key === "Home") next = list[0];
    else if (event.key === "End") next = list[list.length - 1];
    else if (event.key === "Escape") {
      event.preventDefault();
      return close(true);
    } else if (event.key === "Tab") return close(false);
    else return;
    event.preventDefault();
    next?.focus();
  };

  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: PointerEvent) => {
      if (!rootRef.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", onPointerDown);
    return () => document.removeEventListener("pointerdown", onPointerDown);
  }, [open]);

  if (!me.data) return null;
  const user = me.data;
  return (
    <div ref={rootRef} className="relative">
      <button
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={menuId}
        aria-label="Account menu"
        ref={buttonRef}
        onClick={() => setOpen((value) => !value)}
        onKeyDown={onButtonKeyDown}
        className={
          "flex items-center gap-2 rounded-full p-1 pr-2 text-sm text-slate-700 hover:bg-slate-100 " +
          "focus-visible:outline-2 focus-visible:outline-indigo-600"
        }
      >
        <UserAvatar name={user.name} url={user.avatarUrl} />
        <span className="hidden max-w-40 truncate font-medium sm:inline">{user.name}</span>
        <ChevronDown aria-hidden="true" className="size-4 text-slate-400" />
      </button>
      {open ? (
        <div
          ref={menuRef}
          id={menuId}
          role="menu"
          aria-label="Account"
          onKeyDown={onMenuKeyDown}
          className="absolute right-0 z-30 mt-2 w-60 origin-top-right rounded-md bg-white py-1 shadow-lg ring-1 ring-slate-200"
        >
          <div className="border-b border-slate-100 px-4 py-3">
            <p className="truncate text-sm font-medium text-slate-900">{user.name}</p>
            <p className="truncate text-sm text-slate-500">{user.email}</p>
          </div>
          <Link role="menuitem" tabIndex={-1} to="/profile" className={itemClass} onClick={() => setOpen(false)}>
            <UserRound aria-hidden="true" className="size-4" /> Profile
          </Link>
          <Link role="menuitem" tabIndex={-1} to="/security" className={itemClass} onClick={() => setOpen(false)}>
            <LockKeyhole aria-hidden="true" className="size-4" /> Security
          </Link>
          <Link role="menuitem" tabIndex={-1} to="/api-keys" className={itemClass} onClick={() => setOpen(false)}>
            <KeyRound aria-hidden="true" className="size-4" /> API keys
          </Link>
          <button
            role="menuitem"
            tabIndex={-1}
            type="button"
            className={`${itemClass} border-t border-slate-100`}
            disabled={signOut.isPending}
            onClick={() => signOut.mutate()}
          >
            <LogOut aria-hidden="true" className="size-4" /> Sign out
          </button>
        </div>
      ) : null}
    </div>
  );
}
