/**
 * One name for the database handle (ADR 0020, ARCHITECTURE "Transactions"): outside a transaction the
 * pool is `deps.db`, and a function that only reads takes `db: Executor` whether it is handed the pool
 * or a transaction; inside one, the context `inTransaction` hands its work is `t` and the transaction
 * `t.tx`. So no variable or parameter is named `tx` (a bare transaction travels without the context that
 * applies its cache changes and sends its statements alongside), and `inTransaction`'s work takes `(t)`.
 */
const MESSAGE_TX = "Name the handle `db` (a function that reads, `db: Executor`) or take the context as `t` and use `t.tx`; never a bare `tx`.";
const MESSAGE_T = "inTransaction's work takes its context as `t` (and uses `t.tx`).";

/** The identifiers a binding pattern declares (`tx`, `{ tx }`, `{ tx: other }` declares `other`). */
function declared(pattern) {
  if (!pattern) return [];
  if (pattern.type === "Identifier") return [pattern];
  if (pattern.type === "ObjectPattern")
    return pattern.properties.flatMap((property) => declared(property.type === "RestElement" ? property.argument : property.value));
  if (pattern.type === "ArrayPattern") return pattern.elements.flatMap(declared);
  if (pattern.type === "AssignmentPattern") return declared(pattern.left);
  if (pattern.type === "RestElement") return declared(pattern.argument);
  if (pattern.type === "TSParameterProperty") return declared(pattern.parameter);
  return [];
}

export const oneHandleName = {
  meta: { type: "suggestion", docs: { description: "The database handle is `deps.db`, `db` or `t.tx`, never a bare `tx`." }, schema: [] },
  create(context) {
    const refuseTx = (patterns) => {
      for (const identifier of patterns.flatMap(declared)) if (identifier.name === "tx") context.report({ node: identifier, message: MESSAGE_TX });
    };
    const functionParams = (node) => refuseTx(node.params);
    return {
      VariableDeclarator: (node) => refuseTx([node.id]),
      FunctionDeclaration: functionParams,
      FunctionExpression: functionParams,
      ArrowFunctionExpression: functionParams,
      TSDeclareFunction: functionParams,
      CallExpression(node) {
        if (node.callee.type !== "Identifier" || node.callee.name !== "inTransaction") return;
        const work = node.arguments[1];
        if (!work || (work.type !== "ArrowFunctionExpression" && work.type !== "FunctionExpression")) return;
        const [param] = work.params;
        if (param && !(param.type === "Identifier" && param.name === "t")) context.report({ node: param, message: MESSAGE_T });
      },
    };
  },
};
