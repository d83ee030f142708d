import type { ReactNode } from "react";
import { Button } from "./Button";

/** A form card's footer: "… saved" while the saved values are shown unchanged, and the submit button. */
export function SaveFooter({
  saved,
  savedText,
  busy,
  unchanged,
  children,
}: {
  saved: boolean;
  savedText: string;
  busy: boolean;
  unchanged: boolean;
  children: ReactNode;
}) {
  return (
    <>
      {saved && unchanged ? (
        <p role="status" className="mr-auto text-sm text-emerald-700">
          {savedText}
        </p>
      ) : null}
      <Button type="submit" busy={busy} disabled={unchanged}>
        {children}
      </Button>
    </>
  );
}
