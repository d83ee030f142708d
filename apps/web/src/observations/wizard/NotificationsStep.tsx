import { notifiedStatuses } from "@meridian/rules";
import { CheckboxField } from "../../components/CheckboxField";
import { observationStatusInfo } from "../labels";
import type { StepProps } from "./step-props";

/** How and when the owner hears of it. */
export function NotificationsStep({ draft, edit }: StepProps) {
  return (
    <div className="flex flex-col gap-4">
      <CheckboxField label="Email me" checked={draft.email} onChange={(email) => edit("notifications.email", (current) => ({ ...current, email }))} />
      <CheckboxField label="Push notifications" checked={draft.push} onChange={(push) => edit("notifications.push", (current) => ({ ...current, push }))} />
      <fieldset>
        <legend className="text-sm font-medium text-slate-700">When it becomes</legend>
        <div className="mt-2 grid gap-2 sm:grid-cols-2">
          {notifiedStatuses.map((status) => (
            <CheckboxField
              key={status}
              label={observationStatusInfo[status].label}
              checked={draft.states.includes(status)}
              onChange={(checked) =>
                edit("notifications.states", (current) => ({
                  ...current,
                  states: checked ? [...current.states, status] : current.states.filter((value) => value !== status),
                }))
              }
            />
          ))}
        </div>
      </fieldset>
    </div>
  );
}
