import { useQuery } from "@tanstack/react-query";
import { Building2, Check, Crown, ShieldCheck, UserRound, X } from "lucide-react";
import { Card } from "../components/Card";
import { QueryState } from "../components/QueryState";
import { trpc } from "../trpc";
import { PermissionBadges } from "./PermissionBadges";
import { observatoryPermissionInfo, observatoryPermissionKeys, type PermissionSource } from "./permissions";

const roleLabels: Record<string, string> = {
  owner: "you own the organization",
  admin: "you manage its members or observatories",
  member: "you are a member",
};

function describeSource(source: PermissionSource, organizationName: (id: string) => string | undefined) {
  switch (source.kind) {
    case "serverAdmin":
      return { Icon: ShieldCheck, title: "Server administrator", detail: "Administrators may do everything on every observatory." };
    case "owner":
      return { Icon: Crown, title: "Owner", detail: "You own this observatory." };
    case "direct":
      return { Icon: UserRound, title: "Direct grant", detail: "You were added to this observatory yourself." };
    case "organization": {
      const name = (source.organizationId && organizationName(source.organizationId)) || "An organization";
      return {
        Icon: Building2,
        title: `Through ${name}`,
        detail: `Inherited because ${roleLabels[source.role ?? ""] ?? `your role is ${source.role}`}, capped by what the organization was granted.`,
      };
    }
    default:
      return { Icon: UserRound, title: "Other", detail: "" };
  }
}

export function MyPermissions({ observatoryId, organizationName }: { observatoryId: string; organizationName: (id: string) => string | undefined }) {
  const mine = useQuery(trpc.observatories.myPermissions.queryOptions({ id: observatoryId }, { staleTime: 0 }));
  if (mine.isPending || mine.isError) return <QueryState query={mine} loading="Loading your permissions" error="Could not load your permissions" />;
  const effective = mine.data;
  return (
    <div className="flex flex-col gap-6">
      <Card title="Your effective permissions" description="The union of every source below.">
        <ul aria-label="Effective permissions" className="grid gap-3 sm:grid-cols-2">
          {observatoryPermissionKeys.map((key) => (
            <li key={key} className="flex items-start gap-3">
              <span
                className={
                  `mt-0.5 flex size-5 shrink-0 items-center justify-center rounded-full ` +
                  (effective[key] ? "bg-emerald-100 text-emerald-700" : "bg-slate-100 text-slate-400")
                }
              >
                {effective[key] ? <Check aria-hidden="true" className="size-3.5" /> : <X aria-hidden="true" className="size-3.5" />}
              </span>
              <div className="text-sm">
                <p className="font-medium text-slate-900">
                  {observatoryPermissionInfo[key].label}:{" "}
                  <span className={effective[key] ? "text-emerald-700" : "text-slate-500"}>{effective[key] ? "yes" : "no"}</span>
                </p>
                <p className="text-slate-500">{observatoryPermissionInfo[key].description}</p>
              </div>
            </li>
          ))}
        </ul>
      </Card>
      <Card title="Where they come from">
        {effective.sources.length === 0 ? (
          <p className="text-sm text-slate-500">No source grants you anything here.</p>
        ) : (
          <ul aria-label="Permission sources" className="-my-3 divide-y divide-slate-100">
            {effective.sources.map((source, index) => {
              const { Icon, title, detail } = describeSource(source, organizationName);
              return (
                <li key={index} className="flex flex-col gap-2 py-3 sm:flex-row sm:items-start">
                  <span className="flex size-8 shrink-0 items-center justify-center rounded-md bg-indigo-50 text-indigo-600">
                    <Icon aria-hidden="true" className="size-4" />
                  </span>
                  <div className="min-w-0 flex-1">
                    <p className="text-sm font-medium text-slate-900">{title}</p>
                    <p className="text-sm text-slate-500">{detail}</p>
                  </div>
                  <PermissionBadges permissions={source.permissions} label={`Granted by ${title}`} />
                </li>
              );
            })}
          </ul>
        )}
      </Card>
    </div>
  );
}
