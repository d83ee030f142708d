import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { Plus } from "lucide-react";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { TextField } from "../components/TextField";
import { summarizeError } from "../lib/errors";
import { queryClient, trpc } from "../trpc";

export interface CreatedKey {
  id: string;
  name: string;
  key: string;
}

export function CreateApiKeyForm({ onCreated }: { onCreated(key: CreatedKey): void }) {
  const [name, setName] = useState("");
  const create = useMutation(
    trpc.user.createApiKey.mutationOptions({
      onSuccess: async (created) => {
        setName("");
        onCreated(created);
        await queryClient.invalidateQueries(trpc.user.apiKeys.queryFilter());
      },
    }),
  );
  const problem = create.error ? summarizeError(create.error) : null;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    create.mutate({ name });
  };
  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-3">
      {problem && !problem.fieldErrors.name ? <Alert tone="error">{problem.message}</Alert> : null}
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start">
        <TextField
          label="Key name"
          name="name"
          required
          maxLength={100}
          placeholder="e.g. Pipeline on dome-2"
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={problem?.fieldErrors.name}
          className="flex-1"
        />
        <Button type="submit" busy={create.isPending} icon={<Plus aria-hidden="true" className="size-4" />} className="sm:mt-7">
          Create key
        </Button>
      </div>
    </form>
  );
}
