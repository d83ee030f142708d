import { useState, type ReactNode } from "react";
import { useMutation, type UseMutationOptions } from "@tanstack/react-query";
import { Mail } from "lucide-react";
import { summarizeError, type ProblemSummary } from "../../lib/errors";
import { Alert } from "../Alert";
import { Button } from "../Button";
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
  /**
   * Offered when no account has the address: emails an invitation with what the form grants.
   * Resolves once it is sent; a failure is shown as the form's error.
   */
  invite?(email: string): Promise<unknown>;
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
  invite,
}: AddMemberByEmailFormProps<TMember, TError, TInput, TContext>) {
  const [email, setEmail] = useState("");
  const [added, setAdded] = useState<string | null>(null);
  const [blank, setBlank] = useState<string | null>(null);
  const [inviting, setInviting] = useState(false);
  const [inviteError, setInviteError] = useState<string | null>(null);
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
  const general = inviteError ?? (problem && !emailError && !otherFields.some((field) => problem.fieldErrors[field]) ? problem.message : null);
  const offerInvitation = invite && problem?.code === "USER_NOT_FOUND" && !blank && email.trim() !== "";

  const sendInvitation = async () => {
    if (!invite) return;
    const address = email.trim();
    setInviting(true);
    setInviteError(null);
    try {
      await invite(address);
      add.reset();
      setEmail("");
      setAdded(`Invitation sent to ${address}. The link works for 7 days; it is listed under pending invitations until then.`);
    } catch (error) {
      setInviteError(summarizeError(error).message);
    } finally {
      setInviting(false);
    }
  };

  const submit = () => {
    if (!email.trim()) {
      setBlank("Enter the email address of the person to add.");
      return add.reset();
    }
    setBlank(null);
    setAdded(null);
    setInviteError(null);
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
      {offerInvitation ? (
        <Alert tone="info">
          <p>Invite {email.trim()} instead: they get an email with a link to create their account and join, valid for 7 days.</p>
          <Button
            type="button"
            variant="secondary"
            className="mt-2"
            busy={inviting}
            icon={<Mail aria-hidden="true" className="size-4" />}
            onClick={() => void sendInvitation()}
          >
            Send invitation
          </Button>
        </Alert>
      ) : null}
    </AddMemberCard>
  );
}
