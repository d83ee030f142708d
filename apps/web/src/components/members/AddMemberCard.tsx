import type { FormEvent, ReactNode } from "react";
import { UserPlus } from "lucide-react";
import { Alert } from "../Alert";
import { Button } from "../Button";
import { Card } from "../Card";

export interface AddMemberCardProps {
  title: string;
  description: string;
  /** The form's accessible name; the title unless given. */
  formLabel?: string;
  /** A failure no field shows. */
  error: string | null;
  /** "… was added." */
  added: string | null;
  busy: boolean;
  submitLabel: string;
  icon?: ReactNode;
  onSubmit(): void;
  children: ReactNode;
}

/** The card every "add a member" form sits in: failure or success on top, the fields, the button. */
export function AddMemberCard({
  title,
  description,
  formLabel = title,
  error,
  added,
  busy,
  submitLabel,
  icon = <UserPlus aria-hidden="true" className="size-4" />,
  onSubmit,
  children,
}: AddMemberCardProps) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <Card title={title} description={description}>
      <form onSubmit={submit} noValidate aria-label={formLabel} className="flex flex-col gap-4">
        {error ? <Alert tone="error">{error}</Alert> : null}
        {added ? <Alert tone="success">{added}</Alert> : null}
        {children}
        <div>
          <Button type="submit" busy={busy} icon={icon}>
            {submitLabel}
          </Button>
        </div>
      </form>
    </Card>
  );
}
