import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { KeyRound } from "lucide-react";
import { ApiKeyList } from "../api-keys/ApiKeyList";
import { CreateApiKeyForm, type CreatedKey } from "../api-keys/CreateApiKeyForm";
import { NewKeyNotice } from "../api-keys/NewKeyNotice";
import { Card } from "../components/Card";
import { EmptyState } from "../components/EmptyState";
import { QueryState } from "../components/QueryState";
import { queryClient, trpc, trpcClient } from "../trpc";
import { forgetNewPluginKey, rememberNewPluginKey } from "./new-plugin-key";
import { PluginCommand } from "./PluginCommand";

/** The plugin's keys (can_admin): each acts only as this observatory; revoking one closes its connection at once. */
export function ObservatoryKeys({ observatoryId }: { observatoryId: string }) {
  const keys = useQuery(trpc.observatories.keys.queryOptions({ id: observatoryId }, { staleTime: 0 }));
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const refresh = () => queryClient.invalidateQueries(trpc.observatories.keys.queryFilter({ id: observatoryId }));
  const keep = (key: CreatedKey) => {
    setCreated(key);
    rememberNewPluginKey(observatoryId, key.key);
  };
  const saved = () => {
    setCreated(null);
    forgetNewPluginKey(observatoryId);
  };
  return (
    <div className="flex flex-col gap-4">
      {created ? (
        <NewKeyNotice kind="Plugin key" name={created.name} secret={created.key} onDone={saved}>
          <PluginCommand secret={created.key} />
        </NewKeyNotice>
      ) : null}
      <Card title="New plugin key" description="The plugin on the telescope's computer connects with it; Meridian shows a new key once.">
        <CreateApiKeyForm
          onCreated={keep}
          placeholder="e.g. Dome computer"
          creation={{ create: (name) => trpcClient.observatories.createKey.mutate({ id: observatoryId, name }), refresh }}
        />
      </Card>
      <QueryState query={keys} loading="Loading keys" error="Could not load keys">
        {(data) => (
          <ApiKeyList
            keys={data.items}
            label="Plugin keys"
            revocation={{ revoke: (key) => trpcClient.observatories.revokeKey.mutate({ id: observatoryId, keyId: key.id }), refresh }}
            title="Revoke plugin key?"
            warning={(name) => <>A plugin connected with {name} is disconnected at once.</>}
            empty={
              <EmptyState icon={KeyRound} title="No plugin keys yet">
                Create one above: the observatory's plugin, or the simulated one, connects with it and then takes the observations dispatch sends.
              </EmptyState>
            }
          />
        )}
      </QueryState>
      {created ? null : (
        <Card title="Connect a plugin">
          <PluginCommand />
        </Card>
      )}
    </div>
  );
}
