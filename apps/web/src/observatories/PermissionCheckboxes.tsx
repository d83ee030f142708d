import { CheckboxField } from "../components/CheckboxField";
import { observatoryPermissionInfo, observatoryPermissionKeys, setObservatoryPermission, type ObservatoryPermissions } from "./permissions";

/** The four observatory permissions as labelled checkboxes, keeping their implications. */
export function PermissionCheckboxes({
  value,
  onChange,
  legend = "Permissions",
}: {
  value: ObservatoryPermissions;
  onChange(value: ObservatoryPermissions): void;
  legend?: string;
}) {
  return (
    <fieldset>
      <legend className="text-sm font-medium text-slate-700">{legend}</legend>
      <div className="mt-2 grid gap-3 sm:grid-cols-2">
        {observatoryPermissionKeys.map((key) => (
          <CheckboxField
            key={key}
            label={observatoryPermissionInfo[key].label}
            description={observatoryPermissionInfo[key].description}
            checked={value[key]}
            onChange={(checked) => onChange(setObservatoryPermission(value, key, checked))}
          />
        ))}
      </div>
    </fieldset>
  );
}
