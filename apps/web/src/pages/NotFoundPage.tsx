import { Compass } from "lucide-react";
import { Link } from "react-router-dom";
import { EmptyState } from "../components/EmptyState";

export function NotFoundPage() {
  return (
    <EmptyState icon={Compass} title="Page not found">
      Nothing lives at this address.{" "}
      <Link to="/" className="font-semibold text-indigo-600 hover:text-indigo-500">
        Go to the dashboard
      </Link>
    </EmptyState>
  );
}
