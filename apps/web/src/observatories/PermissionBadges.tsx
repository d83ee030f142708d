import { Badge } from "../components/Badge";
import { grantedPermissions, observatoryPermissionInfo, type ObservatoryPermissions } from "./permissions";

/** The granted permissions as badges, in a labelled list so they can be read out (and found by tests). */
export function PermissionBadges({ permissions, label = "Your permissions" }: { permissions: ObservatoryPermissions; label?: string }) {
  const granted = grantedPermissions(permissions);
  if (granted.length === 0) return <span className="text-xs text-slate-400">No permissions</span>;
  return (
    <ul aria-label={label} className="flex flex-wrap gap-1.5">
      {granted.map((key) => (
        <li key={key}>
          <Badge
            tone={key === "can_admin" ? "indigo" : key === "can_operate" ? "amber" : key === "can_observe" ? "sky" : "slate"}
            title={observatoryPermissionInfo[key].description}
          >
            {observatoryPermissionInfo[key].badge}
          </Badge>
        </li>
      ))}
    </ul>
  );
}

export function OnlineBadge({ online }: { online: boolean }) {
  return (
    <Badge tone={online ? "emerald" : "slate"}>
      <span aria-hidden="true" className={`size-1.5 rounded-full ${online ? "bg-emerald-500" : "bg-slate-400"}`} />
      {online ? "Online" : "Offline"}
    </Badge>
  );
}
