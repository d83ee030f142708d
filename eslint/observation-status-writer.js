/**
 * One writer of an observation's status (ARCHITECTURE, "Rules"): every change goes through
 * packages/domain/src/features/observations/transitions.ts (`moveObservation`, `enterObservation`), which judges
 * it by the transition table and records its history, events, notices and dispatch. Anywhere else this
 * rule refuses what would write the status fields: an object with one of them handed to a write of
 * `observationsCollection`, an object typed `ObservationDoc` that sets one, and SQL or drizzle writes of
 * the observations table that name `status`.
 */
const STATUS_FIELDS = new Set(["status", "statusReason", "statusChangedAt"]);
const WRITES = new Set(["insert", "insertMany", "update", "patch"]);
const MESSAGE = "An observation's status is written only by observations/transitions.ts (moveObservation, enterObservation).";

const keyName = (property) => (property.key.type === "Identifier" ? property.key.name : property.key.type === "Literal" ? String(property.key.value) : null);
const namesObservationDoc = (annotation) =>
  annotation?.type === "TSTypeReference" && annotation.typeName.type === "Identifier" && annotation.typeName.name === "ObservationDoc";

/** Whether the node is an argument (at any depth) of a write on `observationsCollection`, or holds an `ObservationDoc`. */
function writesObservation(ancestors) {
  for (let index = ancestors.length - 1; index >= 0; index -= 1) {
    const node = ancestors[index];
    if (node.type === "CallExpression" && node.callee.type === "MemberExpression") {
      const { object, property } = node.callee;
      if (object.type === "Identifier" && object.name === "observationsCollection" && property.type === "Identifier" && WRITES.has(property.name)) return true;
    }
    if (node.type === "VariableDeclarator" && namesObservationDoc(node.id.typeAnnotation?.typeAnnotation)) return true;
    if (/Function/.test(node.type) && namesObservationDoc(node.returnType?.typeAnnotation)) return true;
    if ((node.type === "TSSatisfiesExpression" || node.type === "TSAsExpression") && namesObservationDoc(node.typeAnnotation)) return true;
  }
  return false;
}

/** SQL that sets a status field (`set ...` up to `where`/`returning`/`from`) of the observations table, or inserts rows into it. */
const setClause = /\bupdate\s+observations\s+set\b((?:(?!\b(?:where|returning|from)\b)[\s\S])*)/i;
const insertInto = /\binsert\s+into\s+observations\b/i;
const writesStatusInSql = (text) => insertInto.test(text) || /status/i.test(setClause.exec(text)?.[1] ?? "");

/** `tables.observations` or a bare `observations` (destructured from `tables`) handed to drizzle's `update` or `insert`. */
const isObservationsTable = (node) =>
  (node?.type === "Identifier" && node.name === "observations") ||
  (node?.type === "MemberExpression" && node.property.type === "Identifier" && node.property.name === "observations");

export const observationStatusWriter = {
  meta: { type: "problem", docs: { description: "Only observations/transitions.ts writes an observation's status." }, schema: [] },
  create(context) {
    return {
      Property(node) {
        if (node.parent.type === "ObjectPattern" || !STATUS_FIELDS.has(keyName(node))) return;
        if (writesObservation(context.sourceCode.getAncestors(node))) context.report({ node, message: MESSAGE });
      },
      TemplateLiteral(node) {
        const text = node.quasis.map((quasi) => quasi.value.raw).join(" ");
        if (writesStatusInSql(text)) context.report({ node, message: MESSAGE });
      },
      CallExpression(node) {
        const { callee } = node;
        if (callee.type !== "MemberExpression" || callee.property.type !== "Identifier") return;
        if ((callee.property.name === "update" || callee.property.name === "insert") && isObservationsTable(node.arguments[0]))
          context.report({ node, message: MESSAGE });
      },
    };
  },
};
