import { Compass } from "lucide-react";
import { Link } from "react-router-dom";
import { EmptyState } from "../components/EmptyState";
import { PageHeader } from "../components/PageHeader";
import { useDocumentTitle } from "../lib/document-title";

export function NotFoundPage() {
  useDocumentTitle("Page not found");
  return (
    <>
      <PageHeader title="Page not found" />
      <EmptyState icon={Compass} title="Nothing lives at this address">
        Check the link, or{" "}
        <Link to="/" className="font-semibold text-indigo-600 hover:text-indigo-500">
          go to the dashboard
        </Link>
        .
      </EmptyState>
    </>
  );
}
