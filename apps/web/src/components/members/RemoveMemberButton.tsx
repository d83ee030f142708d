import { LogOut } from "lucide-react";
import { Button } from "../Button";
import { RemoveButton } from "../RemoveButton";

/**
 * "Leave" on your own row, "Remove" on someone else's when you may remove them, nothing on the owner's:
 * an owner neither leaves nor is removed (ownership is transferred first).
 */
export function RemoveMemberButton({
  name,
  self = false,
  owner = false,
  canRemove,
  onClick,
}: {
  name: string;
  self?: boolean;
  owner?: boolean;
  canRemove: boolean;
  onClick(): void;
}) {
  if (owner) return null;
  if (self) {
    return (
      <Button variant="ghost" icon={<LogOut aria-hidden="true" className="size-4" />} onClick={onClick}>
        Leave
      </Button>
    );
  }
  return canRemove ? <RemoveButton name={name} onClick={onClick} /> : null;
}
