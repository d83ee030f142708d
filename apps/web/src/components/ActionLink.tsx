import type { ReactNode } from "react";
import { Link, type To } from "react-router-dom";
import { buttonClass } from "./Button";

/** A link that looks like a button: where a next step is done on another page. */
export function ActionLink({
  to,
  variant = "primary",
  icon,
  className,
  children,
}: {
  to: To;
  variant?: "primary" | "secondary";
  icon?: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  return (
    <Link to={to} className={buttonClass(variant, className)}>
      {icon}
      {children}
    </Link>
  );
}
