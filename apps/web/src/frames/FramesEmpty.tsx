import { FunnelX, ImageOff } from "lucide-react";
import { Button } from "../components/Button";
import { EmptyState } from "../components/EmptyState";

/** No frame found: what this search asked and what to try, or that no frame is there yet at all. */
export function FramesEmpty({ narrowed, cone, onClear }: { narrowed: boolean; cone: boolean; onClear(): void }) {
  if (!narrowed)
    return (
      <EmptyState icon={ImageOff} title="No frames yet">
        Frames appear here once an observatory uploads FITS images for observations you may read; each is measured, plate-solved and graded on arrival.
      </EmptyState>
    );
  return (
    <EmptyState
      icon={ImageOff}
      title="No frame matches"
      actions={
        <Button variant="secondary" icon={<FunnelX aria-hidden="true" className="size-4" />} onClick={onClear}>
          Clear the search
        </Button>
      }
    >
      {cone
        ? "No plate-solved frame you may read lies within this radius with these filters: " +
          "widen the radius (up to 10°), check the coordinates, or clear a filter."
        : "No frame you may read has these filters: clear one, or widen the days."}
    </EmptyState>
  );
}
