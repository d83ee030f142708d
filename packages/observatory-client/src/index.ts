export { askedPauseMs, backoffMs, ObservatoryClient, refusedForNow, type Acknowledgement, type ObservatoryClientOptions, type UploadedFile } from "./client";
export type { AssignedObservation, EquipmentReport, PluginMessageBody, ServerToPluginMessage } from "@meridian/rules/observatory-protocol";
