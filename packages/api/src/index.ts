export { createApiApp, MAX_JSON_BODY_BYTES } from "./http/app";
export type { AppEnv } from "./http/env";
export { problemResponse, toAppError, PROBLEM_CONTENT_TYPE } from "./http/problem";
export type { ApiServices, RequestContext } from "./context";
export { appRouter, createCaller, type AppRouter } from "./trpc/app-router";
export type { TrpcContext } from "./trpc/init";
export { attachWebSocketHub, type WebSocketHub } from "./ws/hub";
export { userProtocol } from "./ws/user-protocol";
export { defineProtocol, observatoryRouteKey, userRouteKey, type Admission, type ProtocolDefinition, type Refusal } from "./ws/protocol";
