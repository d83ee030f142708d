import { PageHeader } from "../components/PageHeader";
import { useDocumentTitle } from "../lib/document-title";
import { ChangePasswordCard } from "../security/ChangePasswordCard";
import { SessionsCard } from "../security/SessionsCard";

export function SecurityPage() {
  useDocumentTitle("Security");
  return (
    <>
      <PageHeader title="Security" description="Your password and the places where you are signed in." />
      <div className="flex flex-col gap-6">
        <ChangePasswordCard />
        <SessionsCard />
      </div>
    </>
  );
}
