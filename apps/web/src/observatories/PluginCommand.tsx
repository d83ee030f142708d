import { useId } from "react";
import { CopyButton } from "../components/CopyButton";
import { PLUGIN_PROTOCOL_DOCS } from "../lib/docs-links";

/** The placeholder where the command has no key to show. */
const KEY_PLACEHOLDER = "<observatory key>";

/** The simulator's command line against this server (the SPA is served by the server it talks to). */
const simulatorCommand = (key = KEY_PLACEHOLDER) => `pnpm simulate:observatory --url ${window.location.origin} --key ${key} --speed 60`;

/**
 * How to connect a plugin: the exact command that runs the simulated observatory against this
 * server, with the new key when one was just created, a copy button, and where the protocol is
 * described for a real plugin.
 */
export function PluginCommand({ secret }: { secret?: string }) {
  const id = useId();
  const command = simulatorCommand(secret);
  const fromCheckout = (
    <>
      from a copy of Meridian (after <code className="font-mono text-xs">pnpm install</code>):
    </>
  );
  return (
    <div className="flex flex-col gap-2 text-sm text-slate-600">
      <p id={`${id}-intro`}>
        {secret ? "With the new key, run" : `With a plugin key in place of ${KEY_PLACEHOLDER}, run`} the simulated observatory {fromCheckout}
      </p>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-start">
        <pre
          aria-labelledby={`${id}-intro`}
          className="min-w-0 flex-1 rounded-md bg-slate-900 px-3 py-2 font-mono text-xs break-all whitespace-pre-wrap text-slate-100"
        >
          <code>{command}</code>
        </pre>
        <CopyButton text={command} label="Copy command" />
      </div>
      <p>
        <code className="font-mono text-xs">--speed 60</code> runs its exposures sixty times faster than real time. A real plugin speaks the same protocol:{" "}
        <a href={PLUGIN_PROTOCOL_DOCS} className="font-medium text-indigo-600 underline underline-offset-2 hover:no-underline">
          the plugin protocol description
        </a>
        .
      </p>
    </div>
  );
}
