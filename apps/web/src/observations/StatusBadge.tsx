import type { ObservationStatus } from "@meridian/rules";
import { Badge } from "../components/Badge";
import { observationStatusInfo } from "./labels";

export function StatusBadge({ status }: { status: ObservationStatus }) {
  const info = observationStatusInfo[status];
  return (
    <Badge tone={info.tone} className="observation-status">
      {info.label}
    </Badge>
  );
}
