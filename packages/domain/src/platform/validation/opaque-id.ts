import { withoutControlCharacters } from "@meridian/rules/fields";
import { z } from "zod";

/** An opaque id as sent by a client: never reaches the database with characters it cannot hold. */
export const opaqueIdSchema = withoutControlCharacters(z.string().min(1).max(100));
