import { useState, type ReactNode } from "react";
import { useMutation, type UseMutationOptions } from "@tanstack/react-query";
import type { ProblemSummary } from "../../lib/errors";
import { formProblem } from "../../lib/form-errors";
import { TextField } from "../TextField";
import { AddMemberCard } from "./AddMemberCard";

export interface AddMemberByEmailFormProps<TMember extends { name: string }, TError, TInput, TContext> {
  title: string;
  description: string;
  formLabel?: string;
  submitLabel?: string;
  emailLabel?: string;
  emailName?: string;
  emailClassName?: string;
  /** The email field's message when no account has the address. */
  notFoundMessage?: string;
  /** Other fields that show their own server error, which then does not show on top as well. */
  otherFields?: string[];
  /** The add call, e.g. `trpc.projects.addMember.mutationOptions()`. */
  mutation: UseMutationOptions<TMember, TError, TInput, TContext>;
  input(email: string): TInput;
  addedMessage?(member: TMember): string;
  /** After the form has emptied its email field and said who was added. */
  onAdded?(member: TMember): unknown;
  /** Lays out the fields: the email field and whatever else the call takes. */
  children?(emailField: ReactNode, problem: ProblemSummary | null): ReactNode;
}

/** Adds a person by the exact email address of their account, as members of organizations, projects and observatories are. */
export function AddMemberByEmailForm<TMember extends { name: string }, TError, TInput, TContext>({
  title,
  description,
  formLabel,
  submitLabel = "Add member",
  emailLabel = "Member email",
  emailName,
  emailClassName,
  notFoundMessage = "No Meridian account uses this email address.",
  otherFields = [],
  mutation,
  input,
  addedMessage = (member) => `${member.name} was added.`,
  onAdded,
  children = (emailField) => emailField,
}: AddMemberByEmailFormProps<TMember, TError, TInput, TContext>) {
  const [email, setEmail] = useState("");
  const [added, setAdded] = useState<string | null>(null);
  const [blank, setBlank] = useState<string | null>(null);
  const add = useMutation<TMember, TError, TInput, TContext>({
    ...mutation,
    onSuccess: async (member, ...rest) => {
      setEmail("");
      setAdded(addedMessage(member));
      await onAdded?.(member);
      await mutation.onSuccess?.(member, ...rest);
    },
  });
  const problem = formProblem(add.error, { codeFields: { ALREADY_MEMBER: "email" } });
  const emailError = blank ?? (problem?.code === "USER_NOT_FOUND" ? notFoundMessage : problem?.fieldErrors.email);
  const general = problem && !emailError && !otherFields.some((field) => problem.fieldErrors[field]) ? problem.message : null;

  const submit = () => {
    if (!email.trim()) {
      setBlank("Enter the email address of the person to add.");
      return add.reset();
    }
    setBlank(null);
    setAdded(null);
    add.mutate(input(email));
  };

  const emailField = (
    <TextField
      label={emailLabel}
      type="email"
      name={emailName}
      autoComplete="off"
      required
      value={email}
      onChange={(e) => setEmail(e.target.value)}
      error={emailError}
      className={emailClassName}
    />
  );
  return (
    <AddMemberCard
      title={title}
      description={description}
      formLabel={formLabel}
      error={general}
      added={added}
      busy={add.isPending}
      submitLabel={submitLabel}
      onSubmit={submit}
    >
      {children(emailField, problem)}
    </AddMemberCard>
  );
}
