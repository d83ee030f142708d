import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { Plus } from "lucide-react";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { TextField } from "../components/TextField";
import { summarizeError } from "../lib/errors";
import { queryClient, trpc, trpcClient } from "../trpc";

export interface CreatedKey {
  id: string;
  name: string;
  key: string;
}

/** The user's own API keys, unless another kind of key (an observatory's) is given. */
const userKeyCreation = {
  create: (name: string) => trpcClient.user.createApiKey.mutate({ name }),
  refresh: () => queryClient.invalidateQueries(trpc.user.apiKeys.queryFilter()),
};

export function CreateApiKeyForm({
  onCreated,
  creation = userKeyCreation,
  placeholder = "e.g. Pipeline on dome-2",
}: {
  onCreated(key: CreatedKey): void;
  creation?: { create(name: string): Promise<CreatedKey>; refresh(): Promise<unknown> };
  placeholder?: string;
}) {
  const [name, setName] = useState("");
  const create = useMutation({
    mutationFn: (keyName: string) => creation.create(keyName),
    onSuccess: async (created) => {
      setName("");
      onCreated(created);
      await creation.refresh();
    },
  });
  const problem = create.error ? summarizeError(create.error) : null;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    create.mutate(name);
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
          placeholder={placeholder}
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
