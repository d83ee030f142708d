import { z } from "zod";
import { issuePredicate, type IssueDetails } from "@meridian/rules";

// One process-wide map: every zod issue without a schema's own message gets Meridian's predicate
// ("must be at most 90"); validationError() puts the field's label in front. The REST
// validators (@hono/zod-openapi) and tRPC parse with this same zod instance.
z.config({ customError: (issue) => issuePredicate(issue as IssueDetails) });
