import { Alert } from "../components/Alert";
import { PageHeader } from "../components/PageHeader";
import { Spinner } from "../components/Spinner";
import { summarizeError } from "../lib/errors";
import { AvatarCard } from "../profile/AvatarCard";
import { NotificationsCard } from "../profile/NotificationsCard";
import { ProfileDetailsCard } from "../profile/ProfileDetailsCard";
import { useProfile } from "../profile/useProfile";

export function ProfilePage() {
  const profile = useProfile();
  return (
    <>
      <PageHeader title="Profile" description="Your personal details, avatar and notification settings." />
      {profile.isPending ? <Spinner label="Loading your profile" /> : null}
      {profile.isError ? <Alert tone="error">Could not load your profile: {summarizeError(profile.error).message}</Alert> : null}
      {profile.data ? (
        <div className="flex flex-col gap-6">
          <ProfileDetailsCard profile={profile.data} />
          <AvatarCard profile={profile.data} />
          <NotificationsCard profile={profile.data} />
        </div>
      ) : null}
    </>
  );
}
