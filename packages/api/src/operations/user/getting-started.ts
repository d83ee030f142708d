import { gettingStartedSchema, readGettingStarted } from "@meridian/domain/users";
import { defineOperation } from "../define-operation";
import { errorResponses } from "../responses";

export const gettingStartedOperations = {
  gettingStarted: defineOperation({
    operationId: "getGettingStarted",
    access: "signed-in",
    tags: ["User"],
    summary: "My first-night checklist",
    description:
      "Extension (the contract is silent): what the dashboard's checklist shows, read from what the caller can see, namely their organizations, " +
      "the observatories they may view, their projects and the observations they submitted. A step is done when that data says so; nothing is " +
      "stored, so a step is undone again when what made it done goes away (the dashboard remembers in the browser when the checklist was finished).",
    method: "get",
    path: "/api/v1/user/getting-started",
    status: 200,
    output: gettingStartedSchema,
    outputDescription: "Each step and whether it is done, and the observatory the location and plugin steps are about",
    responses: { 401: errorResponses[401] },
    handle: ({ ctx, actor }) => readGettingStarted({ db: ctx.deps.db, actor }),
  }),
};
