/**
 * Where the observatory plugin protocol (/ws/observatory) is described for people writing a plugin.
 * The API reference for now; switch this one constant to the AsyncAPI rendering
 * (/api/docs/observatory) once the server serves it.
 */
export const PLUGIN_PROTOCOL_DOCS = "/api/docs";
