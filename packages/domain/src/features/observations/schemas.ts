import { fileKinds, historyActorSchema } from "@meridian/db";
import { observationStatuses, observationTypes } from "@meridian/rules";
import { frameAnalysisSchema, frameHeaderSchema, frameSolutionSchema } from "@meridian/rules/frames";
import {
  exposureDraftSchema,
  exposureListSchema,
  fixedTimeSchema,
  monitoringSchema,
  observationConstraintsSchema,
  observationNameSchema,
  observationNotificationsSchema,
  observationPrioritySchema,
  refineFixedTimes,
  refineMonitoring,
  targetDraftSchema,
  targetListSchema,
  targetSchema,
} from "@meridian/rules/observations";
import { z } from "zod";
import { opaqueIdSchema, withoutControlCharacters } from "../users";
import { observationFilterFields } from "./observation-query";

// The field rules are @meridian/rules' (the wizard checks with them too); the API's inputs also refuse unknown fields.
const exposureInput = z.strictObject(exposureDraftSchema.shape).meta({ id: "Exposure" });
const targetInput = z.strictObject({ ...targetDraftSchema.shape, exposures: exposureListSchema(exposureInput) }).meta({ id: "Target" });
const constraintsInput = z.strictObject(observationConstraintsSchema.shape).meta({ id: "ObservationConstraints" });
const notificationsInput = z.strictObject(observationNotificationsSchema.shape).meta({ id: "ObservationNotifications" });
const monitoringInput = z
  .strictObject(monitoringSchema.shape)
  .meta({ id: "MonitoringCadence" })
  .describe(
    "Type monitoring only: after each run it waits intervalMinutes from the run's end (queue code BEFORE_WINDOW), and it ends completed for good " +
      "once maxRuns runs are done or no run can start before until (a failed last run is then moved to completed, both moves recorded); null for none",
  );

/** The most observatories an observation may name as its candidates (contract: "Network scheduling"). */
const MAX_CANDIDATE_OBSERVATORIES = 20;

const candidateObservatoryIdsInput = z
  .array(opaqueIdSchema)
  .min(2)
  .max(MAX_CANDIDATE_OBSERVATORIES)
  .superRefine((ids, ctx) => {
    ids.forEach((id, index) => {
      if (ids.indexOf(id) !== index) ctx.addIssue({ code: "custom", path: [index], message: `repeats ${id}: each observatory is named once` });
    });
  })
  .describe(
    `2 to ${MAX_CANDIDATE_OBSERVATORIES} distinct observatories it may run at, instead of observatoryId (400 VALIDATION_FAILED when both or neither ` +
      "are given); can_observe is needed on each (403 FORBIDDEN otherwise). Until it is assigned its observatoryId reads null; dispatch may " +
      "assign it at any of them, once",
  );

/** Exactly one of observatoryId and candidateObservatoryIds (`required`: a creation); an edit or a clone may give neither. */
const refineWhereItRuns =
  (required: boolean) => (value: { observatoryId?: string | undefined; candidateObservatoryIds?: string[] | undefined }, ctx: z.RefinementCtx) => {
    const [single, several] = [value.observatoryId !== undefined, value.candidateObservatoryIds !== undefined];
    if (single && several)
      ctx.addIssue({ code: "custom", path: ["candidateObservatoryIds"], message: "is given together with observatoryId: give one of them" });
    else if (required && !single && !several)
      ctx.addIssue({ code: "custom", path: ["observatoryId"], message: "is missing: give observatoryId or candidateObservatoryIds" });
  };

/** Where it runs, as an edit or a clone may change it: one observatory, or its candidates (each replacing the other). */
const whereItRunsFields = {
  observatoryId: opaqueIdSchema.describe("The one observatory it runs at (needs can_observe there)"),
  candidateObservatoryIds: candidateObservatoryIdsInput,
};

const editableFields = {
  name: observationNameSchema,
  type: z
    .enum(observationTypes)
    .describe(
      "fixed_time needs fixedTimeStart; time_based needs fixedTimeStart, fixedTimeEnd or both (400 VALIDATION_FAILED at fixedTimeStart otherwise, " +
        "judged on the observation an edit would leave); dispatch never starts any type before its fixedTimeStart or after its fixedTimeEnd",
    ),
  priority: observationPrioritySchema.describe("1 to 10; 10 is the highest"),
  targets: targetListSchema(targetInput),
  constraints: constraintsInput,
  fixedTimeStart: fixedTimeSchema,
  fixedTimeEnd: fixedTimeSchema,
  bypassDarkness: z.boolean(),
  notifications: notificationsInput,
  monitoring: monitoringInput.nullable(),
  storageDestinationId: opaqueIdSchema
    .nullable()
    .describe("One of the project's organization's external storage destinations: every file of the observation is copied there; null for none"),
};

export const observationCreateSchema = z
  .strictObject({
    ...editableFields,
    projectId: opaqueIdSchema,
    observatoryId: whereItRunsFields.observatoryId.optional(),
    candidateObservatoryIds: whereItRunsFields.candidateObservatoryIds.optional(),
    type: editableFields.type.default("flexible"),
    priority: editableFields.priority.default(5),
    constraints: constraintsInput.default({ minAltitude: 30, maxAirmass: null, moonDistance: null, twilight: "astronomical" }),
    fixedTimeStart: fixedTimeSchema.default(null),
    fixedTimeEnd: fixedTimeSchema.default(null),
    bypassDarkness: z.boolean().default(false),
    notifications: notificationsInput.optional(),
    monitoring: editableFields.monitoring.default(null),
    storageDestinationId: editableFields.storageDestinationId.default(null),
  })
  .superRefine(refineWhereItRuns(true))
  .superRefine(refineFixedTimes)
  .superRefine(refineMonitoring)
  .meta({ id: "ObservationCreate" });
export type ObservationCreate = z.output<typeof observationCreateSchema>;

export const observationUpdateSchema = z
  .strictObject({
    ...(Object.fromEntries(Object.entries(editableFields).map(([key, schema]) => [key, schema.optional()])) as {
      [Key in keyof typeof editableFields]: z.ZodOptional<(typeof editableFields)[Key]>;
    }),
    observatoryId: whereItRunsFields.observatoryId
      .optional()
      .describe("Moves it to this one observatory (needs can_observe there), replacing its observatory or every candidate"),
    candidateObservatoryIds: whereItRunsFields.candidateObservatoryIds
      .optional()
      .describe(
        `Replaces where it may run by these 2 to ${MAX_CANDIDATE_OBSERVATORIES} distinct observatories (can_observe on each, 403 otherwise), ` +
          "whether it named one observatory or other candidates; not with observatoryId (400 VALIDATION_FAILED)",
      ),
  })
  .superRefine(refineWhereItRuns(false))
  .superRefine(refineFixedTimes)
  .superRefine(refineMonitoring)
  .meta({ id: "ObservationUpdate" });
export type ObservationUpdate = z.output<typeof observationUpdateSchema>;

export const observationStatusChangeSchema = z
  .strictObject({
    status: z.enum(observationStatuses),
    reason: withoutControlCharacters(z.string().trim().min(1).max(1000)).optional(),
  })
  .meta({ id: "ObservationStatusChange" });

export const observationCancelSchema = z
  .strictObject({ reason: withoutControlCharacters(z.string().trim().min(1).max(1000)).optional() })
  .meta({ id: "ObservationCancel" });

const exposureProgressSchema = z
  .object({
    targetName: z.string(),
    filter: z.string(),
    exposureSeconds: z.number(),
    desired: z.number().int().describe("The line's count"),
    acquired: z.number().int().describe("Its analysed frames"),
    accepted: z.number().int().describe("Its frames graded accepted"),
  })
  .meta({ id: "ExposureProgress" });

export const observationSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    projectId: z.string(),
    observatoryId: z
      .string()
      .nullable()
      .describe(
        "Where it runs. With candidateObservatoryIds of several: null while pending or paused, the observatory it was assigned to from " +
          "its assignment on, and null again when it goes back to pending",
      ),
    candidateObservatoryIds: z
      .array(z.string())
      .describe("Every observatory it may run at, in the order given: [observatoryId] for one submitted with a single observatory"),
    ownerId: z.string(),
    type: z.enum(observationTypes),
    priority: z.number().int(),
    targets: z.array(targetSchema),
    constraints: observationConstraintsSchema,
    fixedTimeStart: z.string().nullable(),
    fixedTimeEnd: z.string().nullable(),
    bypassDarkness: z.boolean(),
    notifications: observationNotificationsSchema,
    status: z.enum(observationStatuses),
    statusReason: z.string().nullable(),
    statusChangedAt: z.string(),
    isMonitoring: z.boolean(),
    monitoring: monitoringSchema.nullable().describe("A monitoring observation's cadence; null when it has none"),
    storageDestinationId: z.string().nullable().describe("The organization storage destination its files are copied to; null for none"),
    monitoringRuns: z
      .object({ count: z.number().int(), lastEndedAt: z.string() })
      .nullable()
      .describe("A monitoring observation's runs so far and when the last ended; null before the first (extension)"),
    estimatedSeconds: z
      .number()
      .describe(
        "slewSeconds per target + Σ count × (exposureSeconds + readoutSeconds), with its observatory's settings as they are now (while one " +
          "with candidates waits, its first candidate's)",
      ),
    progress: z
      .array(exposureProgressSchema)
      .describe(
        "One row per exposure line of its targets, in their order: `desired` is the line's count; `acquired` counts its analysed frames and " +
          "`accepted` those graded accepted. A frame counts on a line by its target (frame.targetName), FILTER (trimmed, case-insensitive) and " +
          "EXPTIME (within 0.5 s); a card the frame lacks is not held against it (a frame without FILTER, from a camera without a filter " +
          "wheel, counts by target and exposure alone). A frame matching no line counts nowhere; one matching several alike lines fills them " +
          "in order. A frame still queued or failed counts nowhere yet. Computed at read time: regrading and deleted files show at once",
      ),
    repeatOf: z
      .string()
      .nullable()
      .describe(
        "The observation this one repeats: made by the server, pending, with only the exposures its source lacked, when the source ended " +
          "completed or partially_completed with fewer accepted frames than desired on some line once all its frames were analysed and its " +
          "project's frameGrading.repeatRejected was true (never a monitoring one, whose frames add up over its runs). Named " +
          "`<name> (repeat N)`; at most 2 repeats deep. Null for any other",
      ),
    repeatId: z
      .string()
      .nullable()
      .describe(
        "The repeat the server made of this observation's missing exposures (extension; its history records it, or why none could be " +
          "made: an entry whose from and to are both its status); null when none. Judged once, by whichever comes last of the status " +
          "that ends it and the last analysis of its frames; grades changed afterwards (regrading, analysing again) make none",
      ),
    stale: z
      .object({ status: z.enum(observationStatuses), since: z.string(), reportedAt: z.string() })
      .nullable()
      .describe("Set when the stale-observation monitor found it stuck in its current status (extension)"),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "Observation" });
export type Observation = z.infer<typeof observationSchema>;

export const observationPageSchema = z.object({ items: z.array(observationSchema), nextCursor: z.string().nullable() }).meta({ id: "ObservationPage" });

export const observationListQuerySchema = z.object(observationFilterFields);

/**
 * A page of an observation's history holds this many moves by default and at most: more than the contract's usual 50/200,
 * so that a client written when the history came whole (`items` read, `nextCursor` unknown) still gets all of an
 * ordinary observation's moves in one answer; only a long-lived monitoring observation needs the next page.
 */
export const OBSERVATION_HISTORY_PAGE = 1_000;
export const observationHistoryOrders = ["asc", "desc"] as const;
export type ObservationHistoryOrder = (typeof observationHistoryOrders)[number];

const observationHistoryEntrySchema = z
  .object({
    id: z.string().describe("The entry's id (extension)"),
    from: z.enum(observationStatuses).nullable(),
    to: z.enum(observationStatuses),
    at: z.string(),
    actor: historyActorSchema.extend({
      name: z
        .string()
        .nullable()
        .describe(
          "A user's name (extension), given to whoever may list the observation's project's or observatory's members; null otherwise, " +
            "for the observatory and the system, and for a deleted account",
        ),
    }),
    reason: z.string().nullable(),
    clonedFromId: z
      .string()
      .nullable()
      .describe("On a clone's first entry, the observation it was cloned from (extension; `reason` says it in words); null otherwise"),
  })
  .meta({ id: "ObservationHistoryEntry" });
export const observationHistorySchema = z
  .object({ items: z.array(observationHistoryEntrySchema), nextCursor: z.string().nullable() })
  .meta({ id: "ObservationHistory" });

/** A frame's analysis in the read shape, each field described for the OpenAPI document. */
const frameSchema = frameAnalysisSchema
  .extend({
    status: frameAnalysisSchema.shape.status.describe("`queued` until its analysis ends: `analysed`, or `failed` when the frame cannot be read or analysed"),
    failure: frameAnalysisSchema.shape.failure.describe(
      "Why it failed, in words (a bad or truncated header, too many cards, more than 100 megapixels, the time limit…)",
    ),
    header: frameHeaderSchema
      .extend({
        object: frameHeaderSchema.shape.object.describe("OBJECT: the target's name as the camera software wrote it"),
        dateObs: frameHeaderSchema.shape.dateObs.describe("DATE-OBS as written (the exposure's start, ISO 8601 in UTC by the FITS standard)"),
        exposureSeconds: frameHeaderSchema.shape.exposureSeconds.describe("EXPTIME, else EXPOSURE, in seconds"),
        filter: frameHeaderSchema.shape.filter.describe("FILTER"),
        binning: frameHeaderSchema.shape.binning.describe("XBINNING, a positive integer"),
        width: frameHeaderSchema.shape.width.describe("NAXIS1 of the image's HDU, in pixels"),
        height: frameHeaderSchema.shape.height.describe("NAXIS2 of the image's HDU, in pixels"),
        ra: frameHeaderSchema.shape.ra.describe("Degrees: RA (degrees), else OBJCTRA (sexagesimal hours); null unless dec is known too"),
        dec: frameHeaderSchema.shape.dec.describe("Degrees: DEC, else OBJCTDEC (sexagesimal degrees); null unless ra is known too"),
        imageType: frameHeaderSchema.shape.imageType.describe("IMAGETYP (Light, Dark, Flat…)"),
      })
      .describe(
        "The cards Meridian reads, each null when absent: OBJECT, DATE-OBS, EXPTIME (or EXPOSURE), FILTER, XBINNING, NAXIS1/2; ra/dec in degrees " +
          "from RA/DEC, else OBJCTRA/OBJCTDEC (sexagesimal hours and degrees); IMAGETYP",
      )
      .meta({ id: "FrameHeader" }),
    targetName: frameAnalysisSchema.shape.targetName.describe(
      "The observation's target it is for: the one OBJECT names (case-insensitive), else the nearest to the header's position, else the first",
    ),
    stars: frameAnalysisSchema.shape.stars.describe("Sources source-extractor detected (5 σ over at least 5 pixels)"),
    fwhmArcsec: frameAnalysisSchema.shape.fwhmArcsec.describe(
      "Median FWHM of the unflagged stars, in arcseconds at the solved pixel scale (else the expected one); null without stars or scale",
    ),
    hfrArcsec: frameAnalysisSchema.shape.hfrArcsec.describe("Median half-flux radius (source-extractor's FLUX_RADIUS at 0.5), in arcseconds"),
    eccentricity: frameAnalysisSchema.shape.eccentricity.describe("Median eccentricity √(1 − b²/a²) of the stars"),
    backgroundAdu: frameAnalysisSchema.shape.backgroundAdu.describe("Median sky background under the stars, in ADU (BZERO and BSCALE applied)"),
    solution: frameSolutionSchema
      .extend({
        ra: frameSolutionSchema.shape.ra.describe("Right ascension of the frame's centre, J2000 degrees"),
        dec: frameSolutionSchema.shape.dec.describe("Declination of the frame's centre, J2000 degrees"),
        pixelScaleArcsec: frameSolutionSchema.shape.pixelScaleArcsec.describe("Arcseconds per pixel"),
        rotationDeg: frameSolutionSchema.shape.rotationDeg.describe("Up (the image's +y axis) is this many degrees east of north, 0 to 360"),
        widthDeg: frameSolutionSchema.shape.widthDeg.describe("The field's width (NAXIS1), in degrees"),
        heightDeg: frameSolutionSchema.shape.heightDeg.describe("The field's height (NAXIS2), in degrees"),
      })
      .nullable()
      .describe(
        "astrometry.net's plate solution: ra/dec of the frame's centre (J2000 degrees), arcseconds per pixel, the rotation (up, the image's +y axis, is " +
          "rotationDeg east of north, 0 to 360) and the field's size in degrees",
      )
      .meta({ id: "FrameSolution" }),
    solveFailure: frameAnalysisSchema.shape.solveFailure.describe(
      "Why there is no solution: CATALOG_MISSING (STAR_CATALOG_DIR missing or empty), TOO_FEW_STARS (fewer than 5 sources), NOT_SOLVED",
    ),
    pointingOffsetArcsec: frameAnalysisSchema.shape.pointingOffsetArcsec.describe("The solved centre's distance from targetName's coordinates; null unsolved"),
    grade: frameAnalysisSchema.shape.grade.describe("By the project's frameGrading (the contract's defaults until a project sets its own)"),
    rejectedFor: frameAnalysisSchema.shape.rejectedFor.describe(
      "Each check that rejected it, in order: NOT_SOLVED, OFF_TARGET, TOO_FEW_STARS, FWHM_TOO_HIGH, ELONGATED",
    ),
    analysedAt: frameAnalysisSchema.shape.analysedAt.describe("When its analysis ended (`analysed` or `failed`); null while queued"),
  })
  .nullable()
  .describe(
    "Null unless the file's bytes are a FITS image (first card SIMPLE = T; a 2-D primary HDU or first IMAGE extension), whatever its name; " +
      "previews are never frames. A FITS file without a 2-D image becomes null once its analysis has read it.",
  )
  .meta({ id: "Frame" });

export const fileSchema = z
  .object({
    id: z.string(),
    observationId: z.string(),
    filename: z.string(),
    sizeBytes: z.number().int(),
    sha256: z.string(),
    contentType: z.string(),
    kind: z.enum(fileKinds),
    previewOfId: z.string().nullable(),
    deliveries: z
      .array(
        z
          .object({
            destinationId: z.string(),
            status: z.enum(["pending", "delivered", "failed"]),
            attempts: z.number().int(),
            remotePath: z.string().nullable(),
            deliveredAt: z.string().nullable(),
            error: z.string().nullable().describe("Why the last attempt failed, in words; null after a success"),
          })
          .meta({ id: "FileDelivery" }),
      )
      .describe("Its copies to the observation's storage destination; empty when the observation names none"),
    frame: frameSchema,
    createdAt: z.string(),
    missing: z
      .boolean()
      .optional()
      .describe(
        "In a file list: true when storage no longer holds the bytes (the download answers 404 FILE_MISSING); absent when storage did not answer (extension)",
      ),
  })
  .meta({ id: "File" });
const lostFileSchema = z
  .object({
    fileId: z.string().describe("The id its record had"),
    filename: z.string(),
    sizeBytes: z.number().int(),
    contentType: z.string(),
    foundMissingAt: z.string().describe("When the integrity scan that found its bytes gone from storage ran"),
    removedAt: z.string().describe("When an integrity repair removed its record"),
  })
  .meta({ id: "LostFile" });
export const fileListSchema = z
  .object({
    items: z.array(fileSchema),
    lost: z
      .array(lostFileSchema)
      .describe("Files whose bytes were lost and whose records an integrity repair removed, oldest first: they are not in `items` (extension)"),
  })
  .meta({ id: "FileList" });
