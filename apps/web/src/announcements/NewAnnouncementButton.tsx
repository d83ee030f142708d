import { useState } from "react";
import { Megaphone } from "lucide-react";
import { Button } from "../components/Button";
import { CreateAnnouncementDialog } from "./CreateAnnouncementDialog";
import type { Announcement, ScopedKind } from "./types";

/** "New announcement" on an observatory, organization or project page, for those who may send there. */
export function NewAnnouncementButton({
  scope,
  scopeId,
  scopeName,
  onCreated,
}: {
  scope: ScopedKind;
  scopeId: string;
  scopeName: string;
  onCreated?(announcement: Announcement): void;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="secondary" icon={<Megaphone aria-hidden="true" className="size-4" />} onClick={() => setOpen(true)}>
        New announcement
      </Button>
      {open ? (
        <CreateAnnouncementDialog
          destination={{ scope, scopeId, scopeName }}
          onClose={() => setOpen(false)}
          onCreated={(announcement) => {
            setOpen(false);
            onCreated?.(announcement);
          }}
        />
      ) : null}
    </>
  );
}
