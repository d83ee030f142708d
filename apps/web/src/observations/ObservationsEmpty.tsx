import { Crosshair, FunnelX, Plus } from "lucide-react";
import { ActionLink } from "../components/ActionLink";
import { Button } from "../components/Button";
import { EmptyState } from "../components/EmptyState";

const plus = <Plus aria-hidden="true" className="size-4" />;

/** The observations list with nothing in it: no match for the filters, no project yet, or nothing submitted yet. */
export function ObservationsEmpty({ filtered, hasProject, onClearFilters }: { filtered: boolean; hasProject: boolean; onClearFilters(): void }) {
  if (filtered)
    return (
      <EmptyState
        icon={Crosshair}
        title="No observations match"
        actions={
          <Button variant="secondary" icon={<FunnelX aria-hidden="true" className="size-4" />} onClick={onClearFilters}>
            Clear the filters
          </Button>
        }
      >
        None of the observations you may see has this project, observatory and status.
      </EmptyState>
    );
  if (!hasProject)
    return (
      <EmptyState
        icon={Crosshair}
        title="No observations yet"
        actions={
          <ActionLink to="/projects" icon={plus}>
            Create a project first
          </ActionLink>
        }
      >
        Every observation belongs to a project and goes to an observatory you may observe with. You are in no project yet: create one, or ask a project's owner
        to add you.
      </EmptyState>
    );
  return (
    <EmptyState
      icon={Crosshair}
      title="No observations yet"
      actions={
        <ActionLink to="/observations/new" icon={plus}>
          Submit your first observation
        </ActionLink>
      }
    >
      Pick a project, an observatory you may observe with and your targets; dispatch sends the observation when it can be observed. Observations of your
      projects and observatories appear here too.
    </EmptyState>
  );
}
