import { Link } from "react-router-dom";
import { PageHeader } from "../components/PageHeader";
import { QueryState } from "../components/QueryState";
import { AvatarCard } from "../profile/AvatarCard";
import { NotificationsCard } from "../profile/NotificationsCard";
import { ProfileDetailsCard } from "../profile/ProfileDetailsCard";
import { PushChannelsCard } from "../profile/PushChannelsCard";
import { TimeDisplayCard } from "../profile/TimeDisplayCard";
import { useProfile } from "../profile/useProfile";
import { useDocumentTitle } from "../lib/document-title";

export function ProfilePage() {
  useDocumentTitle("Profile");
  const profile = useProfile();
  return (
    <>
      <PageHeader
        title="Profile"
        description={
          <>
            Your personal details, avatar, notification settings and how times are shown. Your password and sessions are under{" "}
            <Link to="/security" className="font-medium text-indigo-600 hover:text-indigo-500">
              Security
            </Link>
            .
          </>
        }
      />
      <QueryState query={profile} loading="Loading your profile" error="Could not load your profile">
        {(data) => (
          <div className="flex flex-col gap-6">
            <ProfileDetailsCard profile={data} />
            <AvatarCard profile={data} />
            <NotificationsCard profile={data} />
            <PushChannelsCard profile={data} />
            <TimeDisplayCard profile={data} />
          </div>
        )}
      </QueryState>
    </>
  );
}
