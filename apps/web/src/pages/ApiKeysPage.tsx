import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { ApiKeyList } from "../api-keys/ApiKeyList";
import { CreateApiKeyForm, type CreatedKey } from "../api-keys/CreateApiKeyForm";
import { NewKeyNotice } from "../api-keys/NewKeyNotice";
import { Card } from "../components/Card";
import { PageHeader } from "../components/PageHeader";
import { QueryState } from "../components/QueryState";
import { trpc } from "../trpc";
import { useDocumentTitle } from "../lib/document-title";

export function ApiKeysPage() {
  useDocumentTitle("API keys");
  const keys = useQuery(trpc.user.apiKeys.queryOptions());
  const [created, setCreated] = useState<CreatedKey | null>(null);
  return (
    <>
      <PageHeader
        title="API keys"
        description={
          <>
            Keys act as you. Send one as <code className="font-mono text-xs">Authorization: Bearer &lt;key&gt;</code>. Every path and its errors are in the{" "}
            <a href="/api/docs" className="font-semibold text-indigo-600 hover:text-indigo-500">
              API reference
            </a>
            .
          </>
        }
      />
      <div className="flex flex-col gap-6">
        <Card title="Create a key" description="Name it after where it will be used, so you know what to revoke later.">
          <CreateApiKeyForm onCreated={setCreated} />
        </Card>
        {created ? <NewKeyNotice name={created.name} secret={created.key} onDone={() => setCreated(null)} /> : null}
        <section aria-labelledby="active-keys-title">
          <h2 id="active-keys-title" className="mb-3 text-base font-semibold text-slate-900">
            Your keys
          </h2>
          <QueryState query={keys} loading="Loading keys" error="Could not load your keys">
            {(data) => <ApiKeyList keys={data.items} />}
          </QueryState>
        </section>
      </div>
    </>
  );
}
