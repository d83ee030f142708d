import { ProblemError } from "../lib/errors";

/** REST, as the observation's "Download all": the server streams one ZIP of the frames named. */
const FRAME_ARCHIVE_PATH = "/frames/archive";

/** The file name the server gives (`Content-Disposition`), else one of its own. */
function filenameOf(response: Response): string {
  const disposition = response.headers.get("content-disposition") ?? "";
  const encoded = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1];
  if (encoded) return decodeURIComponent(encoded);
  return /filename="?([^";]+)"?/i.exec(disposition)?.[1] ?? "frames.zip";
}

/** Hands the bytes to the browser as a download named `filename`. */
function saveAs(blob: Blob, filename: string) {
  const url = URL.createObjectURL(blob);
  try {
    const link = document.createElement("a");
    link.href = url;
    link.download = filename;
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // The download has its own copy once started; the page need not keep the bytes.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }
}

/**
 * Asks for a ZIP of the frames and hands it to the browser as a download (`save`). A POST, since a
 * selection of up to 200 ids does not fit a link; the browser adds the Origin header the server
 * checks for a cookie-authenticated write. A refusal comes back as the server's problem.
 */
export async function downloadFrameArchive(fileIds: readonly string[], save: (blob: Blob, filename: string) => void = saveAs): Promise<void> {
  const response = await fetch(FRAME_ARCHIVE_PATH, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json", accept: "application/zip" },
    body: JSON.stringify({ fileIds }),
  });
  if (!response.ok) throw await ProblemError.fromResponse(response);
  save(await response.blob(), filenameOf(response));
}
