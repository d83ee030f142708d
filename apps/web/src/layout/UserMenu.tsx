import { useEffect, useId, useRef, useState } from "react";
import { ChevronDown, KeyRound, LockKeyhole, LogOut, UserRound } from "lucide-react";
import { Link } from "react-router-dom";
import { useMe } from "../auth/useMe";
import { useSignOut } from "../auth/useSignOut";
import { UserAvatar } from "../components/UserAvatar";

const itemClass = "flex w-full items-center gap-2 px-4 py-2 text-left text-sm text-slate-700 hover:bg-slate-50 focus:bg-slate-50 focus:outline-none";

export function UserMenu() {
  const me = useMe();
  const signOut = useSignOut();
  const [open, setOpen] = useState(false);
  const rootRef = useRef<HTMLDivElement>(null);
  const menuId = useId();

  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: PointerEvent) => {
      if (!rootRef.current?.contains(event.target as Node)) setOpen(false);
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === "Escape") setOpen(false);
    };
    document.addEventListener("pointerdown", onPointerDown);
    document.addEventListener("keydown", onKeyDown);
    return () => {
      document.removeEventListener("pointerdown", onPointerDown);
      document.removeEventListener("keydown", onKeyDown);
    };
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
        onClick={() => setOpen((value) => !value)}
        className="flex items-center gap-2 rounded-full p-1 pr-2 text-sm text-slate-700 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-600"
      >
        <UserAvatar name={user.name} url={user.avatarUrl} />
        <span className="hidden max-w-40 truncate font-medium sm:inline">{user.name}</span>
        <ChevronDown aria-hidden="true" className="size-4 text-slate-400" />
      </button>
      {open ? (
        <div id={menuId} role="menu" aria-label="Account" className="absolute right-0 z-30 mt-2 w-60 origin-top-right rounded-md bg-white py-1 shadow-lg ring-1 ring-slate-200">
          <div className="border-b border-slate-100 px-4 py-3">
            <p className="truncate text-sm font-medium text-slate-900">{user.name}</p>
            <p className="truncate text-sm text-slate-500">{user.email}</p>
          </div>
          <Link role="menuitem" to="/profile" className={itemClass} onClick={() => setOpen(false)}>
            <UserRound aria-hidden="true" className="size-4" /> Profile
          </Link>
          <Link role="menuitem" to="/security" className={itemClass} onClick={() => setOpen(false)}>
            <LockKeyhole aria-hidden="true" className="size-4" /> Security
          </Link>
          <Link role="menuitem" to="/api-keys" className={itemClass} onClick={() => setOpen(false)}>
            <KeyRound aria-hidden="true" className="size-4" /> API keys
          </Link>
          <button role="menuitem" type="button" className={`${itemClass} border-t border-slate-100`} disabled={signOut.isPending} onClick={() => signOut.mutate()}>
            <LogOut aria-hidden="true" className="size-4" /> Sign out
          </button>
        </div>
      ) : null}
    </div>
  );
}
