import { PageHeader } from "../components/PageHeader";
import { useDocumentTitle } from "../lib/document-title";
import { ChangePasswordCard } from "../security/ChangePasswordCard";
import { EmailCard } from "../security/EmailCard";
import { SessionsCard } from "../security/SessionsCard";

export function SecurityPage() {
  useDocumentTitle("Security");
  return (
    <>
      <PageHeader title="Security" description="Your sign-in email, your password and the places where you are signed in." />
      <div className="flex flex-col gap-6">
        <EmailCard />
        <ChangePasswordCard />
        <SessionsCard />
      </div>
    </>
  );
}
