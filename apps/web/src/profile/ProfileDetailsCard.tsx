import { useState, type FormEvent } from "react";
import { Alert } from "../components/Alert";
import { Card } from "../components/Card";
import { SaveFooter } from "../components/SaveFooter";
import { TextField } from "../components/TextField";
import { summarizeError } from "../lib/errors";
import { useUpdateProfile, type Profile } from "./useProfile";

export function ProfileDetailsCard({ profile }: { profile: Profile }) {
  const [name, setName] = useState(profile.name);
  const update = useUpdateProfile();
  const problem = update.error ? summarizeError(update.error) : null;
  const nameError = problem?.fieldErrors.name;
  const unchanged = name.trim() === profile.name;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    update.mutate({ name }, { onSuccess: (saved) => setName(saved.name) });
  };

  return (
    <form onSubmit={submit} noValidate>
      <Card
        title="Personal details"
        description="Your name is shown to the members of your organizations and projects."
        footer={
          <SaveFooter saved={update.isSuccess} savedText="Profile saved" busy={update.isPending} unchanged={unchanged}>
            Save changes
          </SaveFooter>
        }
      >
        <div className="grid gap-4 sm:grid-cols-2">
          {problem && !nameError ? (
            <Alert tone="error" className="sm:col-span-2">
              {problem.message}
            </Alert>
          ) : null}
          <TextField label="Name" name="name" autoComplete="name" required value={name} onChange={(e) => setName(e.target.value)} error={nameError} />
          <TextField label="Email" name="email" type="email" value={profile.email} readOnly disabled hint="Change it on the Security page." />
        </div>
      </Card>
    </form>
  );
}
