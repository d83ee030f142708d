// @vitest-environment happy-dom
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { Route, Routes } from "react-router-dom";
import { describe, expect, it } from "vitest";
import { RequireAuth } from "../auth/RequireAuth";
import { UserMenu } from "../layout/UserMenu";
import { StubRefusal, type Answer, type Procedures, startApi } from "../test-support/api";
import { renderInApp } from "../test-support/render";
import { LoginPage } from "./LoginPage";
import { ProfilePage } from "./ProfilePage";
import { SignupPage } from "./SignupPage";

const NO_PUSHOVER_TOKEN = "This server has no Pushover application token (PUSH_APP_TOKEN), so nothing is sent to Pushover.";
const me = {
  id: "usr_ada",
  name: "Ada Lovelace" as string,
  email: "ada@example.com",
  roles: [] as string[],
  avatarUrl: null as string | null,
  timeDisplay: "observatory" as const,
  emailVerified: true,
};

/** The profile the server keeps, changed by `user.updateProfile` and `user.setPushover` as the server changes it. */
function profileApi() {
  const profile = {
    ...me,
    notificationPreferences: { email: true, push: true, systemEvents: true, observationEvents: true },
    pushover: { configured: false, userKeyHint: null as string | null, devices: [] as string[], notice: NO_PUSHOVER_TOKEN as string | undefined },
  };
  return {
    profile,
    procedures: {
      "auth.me": () => ({ ...me, name: profile.name, avatarUrl: profile.avatarUrl }),
      "user.profile": () => profile,
      "user.vapidPublicKey": () => ({ publicKey: null }),
      "user.updateProfile": ({ name, notificationPreferences }) => {
        if (name !== undefined) profile.name = name;
        Object.assign(profile.notificationPreferences, notificationPreferences);
        return profile;
      },
      "user.setPushover": ({ userKey, devices = [] }) => {
        profile.pushover = { ...profile.pushover, configured: userKey !== null, userKeyHint: userKey ? `…${userKey.slice(-4)}` : null, devices };
        return profile.pushover;
      },
    } satisfies Procedures,
  };
}

describe("the Profile page", () => {
  it("saves the name (the account menu reads it too) and a notification switch", async () => {
    const { procedures } = profileApi();
    const api = await startApi(procedures);
    const { user } = renderInApp(
      <>
        <UserMenu />
        <ProfilePage />
      </>,
      "/profile",
    );
    await screen.findByRole("heading", { name: "Profile" });
    const systemEvents = (await screen.findByLabelText("System events")) as HTMLInputElement;
    expect(systemEvents.checked).toBe(true);
    await user.click(systemEvents);
    await screen.findByText("Notification preferences saved");
    expect(systemEvents.checked).toBe(false);
    expect(api.calls("user.updateProfile")).toEqual([{ notificationPreferences: { systemEvents: false } }]);
    expect((screen.getByLabelText("Observation events") as HTMLInputElement).checked).toBe(true);

    const name = screen.getByLabelText("Name", { exact: true });
    await user.clear(name);
    await user.type(name, "Ada King");
    await user.click(screen.getByRole("button", { name: "Save changes" }));
    await screen.findAllByText("Profile saved");
    expect(api.calls("user.updateProfile").at(-1)).toEqual({ name: "Ada King" });
    await waitFor(() => expect(api.calls("auth.me").length).toBeGreaterThan(1));
    await screen.findByText("Ada King", { selector: "button *, button" });
  });

  it("says plainly that this server has no Pushover token, on the profile and in the test result", async () => {
    const { procedures } = profileApi();
    const api = await startApi({
      ...procedures,
      "user.testNotification": () => ({ email: "sent", webPush: { sent: 0, failed: 0, removed: 0 }, pushover: "off", pushoverNotice: NO_PUSHOVER_TOKEN }),
    });
    const { user } = renderInApp(<ProfilePage />, "/profile");
    const pushover = await screen.findByRole("region", { name: "Pushover" });
    within(pushover).getByText(NO_PUSHOVER_TOKEN);
    await user.type(within(pushover).getByLabelText("User key"), "k".repeat(10) + "abcdefghij1234567890");
    await user.click(within(pushover).getByRole("button", { name: "Save" }));
    await within(pushover).findByText("User key …7890 is set.");
    within(pushover).getByText(NO_PUSHOVER_TOKEN);
    expect(api.calls("user.setPushover")).toEqual([{ userKey: "k".repeat(10) + "abcdefghij1234567890", devices: [] }]);

    await user.click(screen.getByRole("button", { name: "Send a test notification" }));
    const results = await screen.findByRole("list", { name: "Test results" });
    within(results).getByText(/^Pushover: off \(This server has no Pushover application token \(PUSH_APP_TOKEN\)/);
  });

  it("uploads a chosen avatar, says it is saved, and explains a refused (415) file that is not an image", async () => {
    const { procedures, profile } = profileApi();
    let refuse = false;
    const api = await startApi(procedures, (request) => {
      if (request.method !== "PUT" || request.path !== "/api/v1/user/avatar") return { status: 404 };
      if (refuse) {
        const problem = { type: "about:blank", title: "Unsupported Media Type", status: 415, code: "UNSUPPORTED_MEDIA_TYPE", detail: "Not an image" };
        return { status: 415, headers: { "content-type": "application/problem+json" }, body: JSON.stringify(problem) };
      }
      profile.avatarUrl = "/api/v1/users/usr_ada/avatar?v=1" as never;
      return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ avatarUrl: profile.avatarUrl }) };
    });
    const { user } = renderInApp(<ProfilePage />, "/profile");
    const chooser = await screen.findByLabelText("Choose an image");
    await user.upload(chooser, new File([new Uint8Array([137, 80, 78, 71])], "pixel.png", { type: "image/png" }));
    await screen.findByRole("img", { name: "New avatar preview" });
    await user.click(screen.getByRole("button", { name: "Upload avatar" }));
    await screen.findByText("Your new avatar is saved.");
    const put = api.received.find((request) => request.method === "PUT")!;
    expect(put.headers["content-type"]).toBe("image/png");
    await waitFor(() => expect(screen.getByRole("img", { name: "Current avatar" }).getAttribute("src")).toMatch(/^\/api\/v1\/users\/[^/]+\/avatar\?v=/));
    expect(screen.queryByRole("img", { name: "New avatar preview" })).toBeNull();

    refuse = true;
    // A file the chooser's `accept` would hide: the server is the judge (tests/integration/user-avatar-errors.test.ts).
    const notes = new File(["definitely not an image\n"], "notes.txt", { type: "text/plain" });
    fireEvent.change(screen.getByLabelText("Choose an image"), { target: { files: [notes] } });
    await user.click(screen.getByRole("button", { name: "Upload avatar" }));
    const alert = await screen.findByText("That file is not a supported image. Use a JPG, PNG or GIF.");
    expect(alert.closest("[role=alert]")).not.toBeNull();
    expect(screen.getByRole("img", { name: "Current avatar" }).getAttribute("src")).toMatch(/avatar\?v=1$/);
  });
});

describe("getting to one's profile", () => {
  const app = (
    <Routes>
      <Route path="/login" element={<LoginPage />} />
      <Route path="/signup" element={<SignupPage />} />
      <Route
        path="/profile"
        element={
          <RequireAuth>
            <ProfilePage />
          </RequireAuth>
        }
      />
    </Routes>
  );

  it("sends a signed-out visitor to sign in, and a sign-up from there on to the profile, with the server's field error first", async () => {
    const { procedures } = profileApi();
    let signedUp = false;
    const api = await startApi({
      ...procedures,
      "auth.me": () => (signedUp ? procedures["auth.me"]() : null),
      "auth.signup": ({ password }) => {
        if (password.length < 8)
          throw new StubRefusal("VALIDATION_FAILED", 400, "Invalid input", [{ path: "password", message: "Must have at least 8 characters" }]);
        signedUp = true;
        return { user: me } as Answer<"auth.signup">;
      },
    });
    const { user } = renderInApp(app, "/profile");
    await screen.findByRole("heading", { name: "Sign in" });
    await user.click(screen.getByRole("link", { name: "Create an account" }));
    await user.type(await screen.findByLabelText("Name"), "Ada Lovelace");
    await user.type(screen.getByLabelText("Email"), "ada@example.com");
    await user.type(screen.getByLabelText("Password"), "short");
    await user.click(screen.getByRole("button", { name: "Create account" }));
    await screen.findByText("Must have at least 8 characters");
    await user.clear(screen.getByLabelText("Password"));
    await user.type(screen.getByLabelText("Password"), "analytical engine");
    await user.click(screen.getByRole("button", { name: "Create account" }));
    await screen.findByRole("heading", { name: "Profile" });
    await waitFor(() => expect((screen.getByLabelText("Name", { exact: true }) as HTMLInputElement).value).toBe("Ada Lovelace"));
    expect(api.calls("auth.signup").at(-1)).toEqual({ name: "Ada Lovelace", email: "ada@example.com", password: "analytical engine" });
  });

  it("refuses a wrong password in words", async () => {
    await startApi({
      "auth.me": () => null,
      "auth.login": () => {
        throw new StubRefusal("INVALID_CREDENTIALS", 401, "Invalid credentials");
      },
    });
    const { user } = renderInApp(app, "/login");
    await user.type(await screen.findByLabelText("Email"), "ada@example.com");
    await user.type(screen.getByLabelText("Password"), "not the password");
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect((await screen.findByRole("alert")).textContent).toContain("The email or password is not correct.");
  });
});
