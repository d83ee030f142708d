// Types for the helpers in lib.mjs that TypeScript benchmarks use.
export const repoRoot: string;
export const resultsDir: string;
export function sleep(ms: number): Promise<void>;
export function freePort(): Promise<number>;
export function makeTempDir(label: string): Promise<string>;
export function removeTempDirs(): Promise<void>;
export function statusField(pid: number, field: string): number | undefined;
export function childrenOf(pid: number): number[];
export function readRss(pid: number): number | undefined;
export function readPeakRss(pid: number): number | undefined;
export function mib(bytes: number | undefined): string;
export function loadAverage(): string;
export function writeResult(fileName: string, text: string): Promise<string>;
export function numberOption(name: string, fallback: number): number;
export function percentile(values: number[], p: number): number;
export function median(values: number[]): number;
export interface ChildHandle {
  name: string;
  pid: number;
  output: string;
}
export function spawnWorker(extraEnv: Record<string, string>, options?: { timeoutMs?: number }): Promise<ChildHandle>;
export function stopChild(handle: ChildHandle, options?: { graceMs?: number }): Promise<unknown>;
export function stopAll(): Promise<void>;
export function installCleanupHooks(): void;
export const MIB_CHUNK: Buffer;
export function generatedBody(sizeMib: number): ReadableStream<Uint8Array>;
export function callJson(base: string, pathname: string, token: string | null, json?: unknown, method?: string): Promise<Record<string, unknown>>;
export function cleanEnv(extra: Record<string, string>): Record<string, string>;
export function machineDescription(): { cpuModel: string; cores: number; memory: string; node: string; platform: string; loadAverage: string };
export function cpuSeconds(pid: number | undefined): number;
export function cpuSecondsWithChildren(pid: number): number;
export function postgresCpuSeconds(dataDir: string): number;
export interface MeridianHandle extends ChildHandle {
  baseUrl: string;
}
export function spawnMeridian(options: {
  dataDir: string;
  port: number;
  postgresPort: number;
  role?: "all" | "server" | "worker";
  tmpDir?: string;
  extraEnv?: Record<string, string>;
}): MeridianHandle;
export function waitForStatus(
  handle: ChildHandle,
  url: string,
  options?: { status?: number; since?: number; timeoutMs?: number; intervalMs?: number },
): Promise<number>;
