import { td } from "../Table";
import { UserAvatar } from "../UserAvatar";

/** A member's cell in a members list: avatar, name (marked when it is you) and email. */
export function MemberCell({ name, email, self, narrow = false }: { name: string; email: string; self: boolean; narrow?: boolean }) {
  return (
    <td className={td}>
      <div className={`flex items-center gap-3 ${narrow ? "min-w-40" : "min-w-48"}`}>
        <UserAvatar name={name} url={null} />
        <div className="min-w-0">
          <p className="truncate font-medium text-slate-900">
            {name}
            {self ? <span className="ml-1 text-xs font-normal text-slate-500">(you)</span> : null}
          </p>
          <p className="truncate text-xs text-slate-500">{email}</p>
        </div>
      </div>
    </td>
  );
}
