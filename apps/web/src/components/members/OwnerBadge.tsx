import { Crown } from "lucide-react";
import { Badge } from "../Badge";

export function OwnerBadge() {
  return (
    <Badge tone="indigo">
      <Crown aria-hidden="true" className="size-3" /> Owner
    </Badge>
  );
}
