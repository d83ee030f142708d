import { Trash2 } from "lucide-react";
import { Button } from "./Button";

/** A quiet "Remove" button, named for what it removes ("Remove Archive bucket"). */
export function RemoveButton({ name, onClick }: { name: string; onClick(): void }) {
  return (
    <Button variant="ghost" aria-label={`Remove ${name}`} icon={<Trash2 aria-hidden="true" className="size-4 text-red-600" />} onClick={onClick}>
      Remove
    </Button>
  );
}
