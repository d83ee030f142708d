import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { envVariableNames } from "@meridian/config";
import * as apps from "kubernetes-models/apps/v1";
import * as networking from "kubernetes-models/networking.k8s.io/v1";
import * as policy from "kubernetes-models/policy/v1";
import * as core from "kubernetes-models/v1";

/**
 * The Kubernetes manifests (infra/k8s) against the Kubernetes API's own JSON schemas (as
 * kubeconform checks them, from `kubernetes-models`, offline), and against Meridian: every
 * variable they set is one the env module reads, and kustomize applies every manifest.
 */

const K8S = path.resolve(import.meta.dirname, "../../infra/k8s");

interface Manifest {
  file: string;
  doc: { apiVersion: string; kind: string; metadata?: { name?: string }; [key: string]: unknown };
}

async function manifests(): Promise<Manifest[]> {
  const files = (await fs.readdir(K8S)).filter((file) => file.endsWith(".yaml") && file !== "kustomization.yaml");
  const found: Manifest[] = [];
  for (const file of files)
    for (const document of parseAllDocuments(await fs.readFile(path.join(K8S, file), "utf8"))) {
      expect(document.errors, file).toEqual([]);
      const doc = document.toJS() as Manifest["doc"] | null;
      if (doc) found.push({ file, doc });
    }
  return found;
}

/** The API groups the manifests use; a manifest of another group fails until it is added here. */
const groups: Record<string, Record<string, unknown>> = { v1: core, "apps/v1": apps, "networking.k8s.io/v1": networking, "policy/v1": policy };

/** The model class of an apiVersion and kind, whose `validate()` checks the object against the API's schema. */
function modelOf(apiVersion: string, kind: string) {
  const Model = groups[apiVersion]?.[kind] as (new (data: unknown) => { validate(): void }) | undefined;
  if (!Model) throw new Error(`no schema for ${apiVersion} ${kind}`);
  return Model;
}

describe("infra/k8s", () => {
  it("every manifest is valid for the Kubernetes API", async () => {
    const all = await manifests();
    expect(all.map((manifest) => manifest.doc.kind).sort()).toEqual(
      expect.arrayContaining(["ConfigMap", "Deployment", "Deployment", "Ingress", "Namespace", "PodDisruptionBudget", "Service"]),
    );
    for (const { file, doc } of all) {
      const Model = modelOf(doc.apiVersion, doc.kind);
      expect(() => new Model(doc).validate(), `${file}: ${doc.kind} ${doc.metadata?.name}`).not.toThrow();
    }
  });

  it("the schema check refuses a manifest with a mistake in it", async () => {
    const deployment = (await manifests()).find((manifest) => manifest.doc.kind === "Deployment")!.doc;
    const Model = modelOf(deployment.apiVersion, deployment.kind);
    const broken = structuredClone(deployment) as unknown as { spec: { replicas: unknown } };
    broken.spec.replicas = "two";
    expect(() => new Model(broken).validate()).toThrow();
  });

  it("sets only variables Meridian reads, and kustomize applies every manifest", async () => {
    const known = new Set(envVariableNames);
    const all = await manifests();
    const names = new Set<string>();
    for (const { doc } of all) {
      if (doc.kind === "ConfigMap") for (const name of Object.keys((doc as { data?: object }).data ?? {})) names.add(name);
      const containers = (doc as { spec?: { template?: { spec?: { containers?: Array<{ env?: Array<{ name: string }> }> } } } }).spec?.template?.spec
        ?.containers;
      for (const container of containers ?? []) for (const variable of container.env ?? []) names.add(variable.name);
    }
    expect(names.size).toBeGreaterThan(0);
    expect([...names].filter((name) => !known.has(name))).toEqual([]);
    const kustomization = (await fs.readFile(path.join(K8S, "kustomization.yaml"), "utf8")).split("\n");
    const listed = kustomization.filter((line) => /^\s+- [\w.-]+\.yaml$/.test(line)).map((line) => line.trim().slice(2));
    expect([...new Set(all.map((manifest) => manifest.file))].filter((file) => file !== "secret.example.yaml").sort()).toEqual(listed.sort());
  });
});
