import { useState } from "react";
import { Plus } from "lucide-react";
import { Alert } from "../../components/Alert";
import { Button } from "../../components/Button";
import { CreateObservatoryDialog } from "../../observatories/CreateObservatoryDialog";
import { CreateProjectDialog } from "../../projects/CreateProjectDialog";
import { queryClient, trpc } from "../../trpc";

const plus = <Plus aria-hidden="true" className="size-4" />;

/**
 * What to do when there is no project or no observatory to choose: make one here (it is chosen at once) or, for an
 * observatory, ask one's administrators for permission to observe. The wizard is no dead end for a new user.
 */
export function MissingChoices({
  noProject,
  noObservatory,
  onProject,
  onObservatory,
}: {
  noProject: boolean;
  noObservatory: boolean;
  onProject(id: string): void;
  onObservatory(id: string): void;
}) {
  const [creating, setCreating] = useState<"project" | "observatory" | null>(null);
  if (!noProject && !noObservatory && !creating) return null;
  return (
    <div className="mb-4 flex flex-col gap-3">
      {noProject ? (
        <Alert tone="info">
          <p>You have no active project: every observation belongs to one. Make one now; it is chosen for this observation.</p>
          <Button className="mt-2" variant="secondary" icon={plus} onClick={() => setCreating("project")}>
            New project
          </Button>
        </Alert>
      ) : null}
      {noObservatory ? (
        <Alert tone="info">
          <p>
            There is no observatory where you may observe. Add your own telescope now, or ask the administrators of an observatory to give you the permission to
            observe there.
          </p>
          <Button className="mt-2" variant="secondary" icon={plus} onClick={() => setCreating("observatory")}>
            New observatory
          </Button>
        </Alert>
      ) : null}
      {creating === "project" ? (
        <CreateProjectDialog
          onClose={() => setCreating(null)}
          onCreated={(project) => {
            setCreating(null);
            onProject(project.id);
            void queryClient.invalidateQueries(trpc.projects.pathFilter());
          }}
        />
      ) : null}
      {creating === "observatory" ? (
        <CreateObservatoryDialog
          onClose={() => setCreating(null)}
          onCreated={(observatory) => {
            setCreating(null);
            onObservatory(observatory.id);
            void queryClient.invalidateQueries(trpc.observatories.pathFilter());
          }}
        />
      ) : null}
    </div>
  );
}
