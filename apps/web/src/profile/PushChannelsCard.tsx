import { useState } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { BellRing, Send } from "lucide-react";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { Card } from "../components/Card";
import { TextField } from "../components/TextField";
import { summarizeError } from "../lib/errors";
import { formProblem } from "../lib/form-errors";
import { queryClient, trpc, trpcClient } from "../trpc";
import type { Profile } from "./useProfile";

const fromBase64Url = (text: string) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (character) => character.charCodeAt(0));

/** Subscribes this browser through the service worker (served under /app/) and hands the subscription to the server. */
async function subscribeThisBrowser(publicKey: string) {
  const registration = await navigator.serviceWorker.register(`${import.meta.env.BASE_URL}sw.js`);
  const permission = await Notification.requestPermission();
  if (permission !== "granted") throw new Error("The browser did not allow notifications.");
  const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: fromBase64Url(publicKey) });
  const json = subscription.toJSON() as { endpoint: string; keys: { p256dh: string; auth: string } };
  await trpcClient.user.subscribePush.mutate({ endpoint: json.endpoint, keys: json.keys });
}

/** Push channels: this browser (web push), Pushover, and the test button with what each channel did. */
export function PushChannelsCard({ profile }: { profile: Profile }) {
  const vapid = useQuery(trpc.user.vapidPublicKey.queryOptions(undefined));
  const [browserError, setBrowserError] = useState<string | null>(null);
  const [browserDone, setBrowserDone] = useState(false);
  const [userKey, setUserKey] = useState("");
  const [devices, setDevices] = useState(profile.pushover.devices.join(", "));
  const refreshProfile = () => queryClient.invalidateQueries(trpc.user.profile.queryFilter());
  const pushover = useMutation(trpc.user.setPushover.mutationOptions({ onSuccess: refreshProfile }));
  const test = useMutation(trpc.user.testNotification.mutationOptions());
  const problem = formProblem(pushover.error);
  const browserSupported = typeof window !== "undefined" && "serviceWorker" in navigator && "PushManager" in window;
  const subscribeBrowser = async () => {
    setBrowserError(null);
    try {
      await subscribeThisBrowser(vapid.data!.publicKey!);
      setBrowserDone(true);
      await refreshProfile();
    } catch (error) {
      setBrowserError(error instanceof Error ? error.message : summarizeError(error).message);
    }
  };

  return (
    <Card title="Push channels" description="Where push notifications go. Switch push on or off above.">
      <div className="flex flex-col gap-6">
        <section aria-labelledby="push-browser">
          <h3 id="push-browser" className="text-sm font-semibold text-slate-900">
            This browser
          </h3>
          {vapid.data?.publicKey === null ? (
            <p className="mt-1 text-sm text-slate-500">Web push is not configured on this server.</p>
          ) : !browserSupported ? (
            <p className="mt-1 text-sm text-slate-500">This browser cannot receive push notifications.</p>
          ) : (
            <div className="mt-2 flex flex-wrap items-center gap-3">
              <Button variant="secondary" icon={<BellRing aria-hidden="true" className="size-4" />} onClick={() => void subscribeBrowser()}>
                Send notifications to this browser
              </Button>
              {browserDone ? <span className="text-sm text-emerald-700">This browser is subscribed.</span> : null}
            </div>
          )}
          {browserError ? (
            <Alert tone="error" className="mt-2">
              {browserError}
            </Alert>
          ) : null}
        </section>
        <section aria-labelledby="push-pushover">
          <h3 id="push-pushover" className="text-sm font-semibold text-slate-900">
            Pushover
          </h3>
          <p className="mt-1 text-sm text-slate-500">{profile.pushover.configured ? `User key ${profile.pushover.userKeyHint} is set.` : "No user key set."}</p>
          {profile.pushover.notice ? <Alert className="mt-2">{profile.pushover.notice}</Alert> : null}
          <form
            noValidate
            className="mt-2 grid gap-3 sm:grid-cols-3 sm:items-start"
            onSubmit={(event) => {
              event.preventDefault();
              pushover.mutate({
                userKey,
                devices: devices
                  .split(",")
                  .map((device) => device.trim())
                  .filter(Boolean),
              });
              setUserKey("");
            }}
          >
            <TextField
              label="User key"
              type="password"
              autoComplete="off"
              value={userKey}
              onChange={(e) => setUserKey(e.target.value)}
              error={problem?.fieldErrors.userKey}
            />
            <TextField
              label="Devices"
              hint="Optional, comma-separated"
              value={devices}
              onChange={(e) => setDevices(e.target.value)}
              error={problem?.fieldErrors.devices}
            />
            <div className="flex gap-2 sm:mt-7">
              <Button type="submit" busy={pushover.isPending}>
                Save
              </Button>
              {profile.pushover.configured ? (
                <Button variant="secondary" onClick={() => pushover.mutate({ userKey: null, devices: [] })}>
                  Remove
                </Button>
              ) : null}
            </div>
          </form>
        </section>
        <section aria-labelledby="push-test">
          <h3 id="push-test" className="text-sm font-semibold text-slate-900">
            Test
          </h3>
          <Button
            className="mt-2"
            variant="secondary"
            busy={test.isPending}
            icon={<Send aria-hidden="true" className="size-4" />}
            onClick={() => test.mutate()}
          >
            Send a test notification
          </Button>
          {test.data ? (
            <ul aria-label="Test results" className="mt-2 text-sm text-slate-700">
              <li>Email: {test.data.email}</li>
              <li>
                Web push: {test.data.webPush.sent} sent, {test.data.webPush.failed} failed, {test.data.webPush.removed} removed
              </li>
              <li>
                Pushover: {test.data.pushover}
                {test.data.pushoverNotice ? ` (${test.data.pushoverNotice})` : null}
              </li>
            </ul>
          ) : null}
          {test.error ? (
            <Alert tone="error" className="mt-2">
              {summarizeError(test.error).message}
            </Alert>
          ) : null}
        </section>
      </div>
    </Card>
  );
}
