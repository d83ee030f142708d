/**
 * Files (previews included) one observation may hold: the next upload is 409 CONFLICT, refused
 * before its bytes are taken when the count already says so, and a frame's analysis makes no
 * preview past it; the file list is then whole.
 */
export const MAX_OBSERVATION_FILES = 10_000;
