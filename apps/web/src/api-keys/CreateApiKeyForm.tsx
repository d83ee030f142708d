import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { Plus } from "lucide-react";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { SelectField } from "../components/SelectField";
import { TextField } from "../components/TextField";
import { summarizeError } from "../lib/errors";
import { formatShortDate } from "../lib/format";
import { useNow } from "../lib/useNow";
import { queryClient, trpc, trpcClient } from "../trpc";

export interface CreatedKey {
  id: string;
  name: string;
  key: string;
}

interface KeyCreation {
  create(name: string, expiresAt: string | null): Promise<CreatedKey>;
  refresh(): Promise<unknown>;
  /** Whether these keys may expire (a user's do; an observatory's plugin keys last until revoked). */
  expires?: boolean;
}

/** The user's own API keys, unless another kind of key (an observatory's) is given. */
const userKeyCreation: KeyCreation = {
  create: (name, expiresAt) => trpcClient.user.createApiKey.mutate({ name, expiresAt }),
  refresh: () => queryClient.invalidateQueries(trpc.user.apiKeys.queryFilter()),
  expires: true,
};

const DAY_MS = 24 * 60 * 60 * 1000;
/** Days until the key expires; "never" keeps it until revoked. A year is 365 days: the server takes up to 366. */
const expiryChoices = [
  { value: "30", label: "30 days" },
  { value: "90", label: "90 days" },
  { value: "365", label: "1 year" },
  { value: "never", label: "No expiry" },
] as const;
type ExpiryChoice = (typeof expiryChoices)[number]["value"];
// Counted from the moment of creation, not of choosing: a form left open a while still gives the whole span.
const expiryOf = (choice: ExpiryChoice, now: number) => (choice === "never" ? null : new Date(now + Number(choice) * DAY_MS).toISOString());

export function CreateApiKeyForm({
  onCreated,
  creation = userKeyCreation,
  placeholder = "e.g. Pipeline on dome-2",
}: {
  onCreated(key: CreatedKey): void;
  creation?: KeyCreation;
  placeholder?: string;
}) {
  const [name, setName] = useState("");
  const [expiry, setExpiry] = useState<ExpiryChoice>("90");
  // The hint's day; the key's expiry itself is counted from the moment it is created.
  const now = useNow();
  const create = useMutation({
    mutationFn: (keyName: string) => creation.create(keyName, creation.expires ? expiryOf(expiry, Date.now()) : null),
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
      {problem && !problem.fieldErrors.name && !problem.fieldErrors.expiresAt ? <Alert tone="error">{problem.message}</Alert> : null}
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
        {creation.expires ? (
          <SelectField
            label="Expires"
            name="expires"
            value={expiry}
            onChange={(e) => setExpiry(e.target.value as ExpiryChoice)}
            error={problem?.fieldErrors.expiresAt}
            hint={expiry === "never" ? "Works until revoked" : `On ${formatShortDate(expiryOf(expiry, now))}`}
            className="sm:w-40"
          >
            {expiryChoices.map((choice) => (
              <option key={choice.value} value={choice.value}>
                {choice.label}
              </option>
            ))}
          </SelectField>
        ) : null}
        <Button type="submit" busy={create.isPending} icon={<Plus aria-hidden="true" className="size-4" />} className="sm:mt-7">
          Create key
        </Button>
      </div>
    </form>
  );
}
